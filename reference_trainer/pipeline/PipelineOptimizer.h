#pragma once
// The pipeline's optimizer, on its own thread once all jobs of a step are done: per parameter the
// micro-batches' gradients summed in micro-batch order (what the plain trainer's accumulation
// does), then AdamW. Synchronous by default: the next step's jobs start after it. RoundPipe's
// asynchronous optimizer (PipelineSettings::asyncOptimizer, StageReplicas' snapshots) leaves the
// update of step k running while step k + 1 computes, one update at a time; its failure is thrown
// by the next step or by finish(). Looped-BFS's master weights and optimizer live on the GPU,
// RoundPipe's on the host (pinned) on CUDA.
#include <torch/torch.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <thread>

#include "reference_trainer/WorkerStreams.h"
#include "reference_trainer/pipeline/HandOffs.h"
#include "reference_trainer/pipeline/PipelineRecorder.h"
#include "reference_trainer/pipeline/PipelineStep.h"
#include "reference_trainer/pipeline/StageReplicas.h"

namespace glueprof {

class Trainer;

class PipelineOptimizer {
  public:
    // `replicas` is null without RoundPipe; asynchronous when its uploads read snapshots.
    PipelineOptimizer(Trainer& trainer, const WorkerStreams& streams, int workers,
                      const ParameterIndex& index, StageReplicas* replicas,
                      PipelineRecorder& recorder);
    ~PipelineOptimizer();  // waits for a running update; its failure is lost (see join)
    PipelineOptimizer(const PipelineOptimizer&) = delete;
    PipelineOptimizer& operator=(const PipelineOptimizer&) = delete;

    // Updates the weights with the gradients of `step` on the optimizer thread, after the previous
    // update ended (and throws that one's failure); returns once it is done unless asynchronous.
    void start(std::unique_ptr<PipelineStep> step);
    // Waits for the running update, if any, and throws its failure.
    void join();

  private:
    void update(PipelineStep& step);
    // The gradient of parameter `index` over the step's micro-batches; undefined when none met it.
    static torch::Tensor summedGradient(const PipelineStep& step, std::size_t index);

    Trainer& m_trainer;
    const WorkerStreams& m_streams;
    int m_workers;
    const ParameterIndex& m_index;
    StageReplicas* m_replicas;
    PipelineRecorder& m_recorder;
    std::unique_ptr<PipelineStep> m_updating;  // the step whose update runs on m_thread
    std::thread m_thread;
    std::exception_ptr m_failure;
};

}  // namespace glueprof
