#pragma once
// "Measure, then replay": per-layer costs from an executed pipeline run. Each worker job of the
// run's measured steps (forward / recompute / backward ranges on pipeline-worker lanes, tagged with
// their stage and micro-batch) is timed; the median per stage, spread evenly over the stage's
// layers, gives per-layer costs; the LM head's from its stage (Looped-BFS: the last stage, whose
// recompute of the head counts as head backward, as the executor recomputes it; RoundPipe: backward
// stage 0). Replayed through the simulator, they predict the same run (compare with its executed
// bubble) and other P.
#include "optimizations/pipeline_schedule/PipelineSimulator.h"
#include "profiler/core/TraceModel.h"

namespace glueprof::pipeline {

// `plan`: the run's pipeline plan (its config JSON's "pipeline_plan"). Throws std::invalid_argument
// when the run has no worker jobs for a stage of the plan.
PipelineCosts measuredCosts(const TraceModel& executed, const SimulationSpec& plan);

}  // namespace glueprof::pipeline
