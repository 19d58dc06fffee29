#pragma once
// Where a simulation's costs come from besides a cost file ("measure, then replay"): measured on a
// trainer preset by a short single-worker run, or taken from an executed pipeline run's jobs.
// Torch-free header.
#include <string>

#include "app/report/SimulationResults.h"
#include "optimizations/pipeline_schedule/CostFile.h"
#include "profiler/session/CaptureSession.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/TrainConfig.h"

namespace glueprof {

// An executed pipeline run's plan, with the costs its jobs measured (analyzers/PipelineReplay), as
// a cost file the simulator reads, and the run as it executed.
struct ReplayedPipeline {
    pipeline::CostFile file;  // costs, P, M and the plan's partitions
    std::string schedule;     // the plan's
    ExecutedPipeline executed;
};

// Input errors: a run that is not an executed pipeline, or whose plan or jobs cannot be read.
ReplayedPipeline replayPipelineRun(const std::string& db, RunId run);

struct MeasuredPreset {
    pipeline::PipelineCosts costs;  // per layer; no hops, no optimizer
    MeasuredCosts measured;
};

// Runs `config` (preset `preset`) for 1 warm-up and 2 measured steps in `session`, then takes its
// per-layer medians (analyzers/LayerCosts). Ctrl-C ends the run aborted. An input error when the
// run has no layer ranges.
MeasuredPreset measurePresetCosts(const TrainConfig& config, const std::string& preset,
                                  CaptureSession& session, const ProgressCallback& progress);

}  // namespace glueprof
