#pragma once
// One optimizer step as the pipeline runs it: its micro-batches on each device the workers use,
// and what its jobs hand each other. Owned by the executor while the workers run it, then by the
// optimizer until its update ends (an asynchronous update outlives the step's own turn).
#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "profiler/core/Event.h"
#include "reference_trainer/data/PackedBatches.h"
#include "reference_trainer/model/ForwardContext.h"
#include "reference_trainer/pipeline/HandOffs.h"

namespace glueprof {

struct PipelineStep {
    PipelineStep(std::int32_t step, RunId run, int microbatches, std::size_t parameters)
        : step(step), run(run), handOffs(microbatches, parameters) {}

    struct DeviceInputs {  // the micro-batches on one of the workers' devices
        std::vector<PackedBatch> batches;
        std::vector<ForwardContext> contexts;  // pointing into batches
    };

    std::int32_t step = 0;
    // The run the step belongs to (an asynchronous optimizer may end after the next arm began); 0:
    // not recorded.
    RunId run = 0;
    std::vector<DeviceInputs> inputs;  // per device (WorkerStreams::slot)
    HandOffs handOffs;
};

}  // namespace glueprof
