#pragma once
// "Measure, then replay": per-layer costs from an executed pipeline run. Each worker job of the
// run's measured steps (forward / recompute / backward ranges on pipeline-worker lanes, tagged with
// their stage and micro-batch) is timed; the median per stage, spread evenly over the stage's
// layers, gives per-layer costs; the LM head's from its stage (Looped-BFS: the last stage, whose
// recompute of the head counts as head backward, as the executor recomputes it; RoundPipe: backward
// stage 0). `glueprof simulate --replay` feeds them to the pipeline simulator, which then predicts
// the same run (compare with its executed bubble) and other P.
#include <cstddef>
#include <vector>

#include "analyzers/LayerCosts.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

// The executed plan's shape (from the run's config "pipeline_plan").
struct ReplayPlan {
    bool roundPipe = false;              // else a bound schedule (Looped-BFS)
    std::size_t layers = 0;              // decoder layers
    std::vector<int> forwardPartition;   // layers per stage (bound: the last stage has the head)
    std::vector<int> backwardPartition;  // RoundPipe: backward stages, stage 0 the head
};

// Throws std::invalid_argument when the run has no worker jobs for a stage of the plan.
PerLayerCosts measureReplayCosts(const TraceModel& executed, const ReplayPlan& plan);

}  // namespace glueprof
