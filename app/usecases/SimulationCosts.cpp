#include "app/usecases/SimulationCosts.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analyzers/LayerCosts.h"
#include "analyzers/PipelineBubbles.h"
#include "analyzers/PipelineReplay.h"
#include "optimizations/pipeline_schedule/SimulationTrace.h"
#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/RunMetadata.h"
#include "profiler/core/TraceReader.h"

namespace glueprof {

namespace {

// Costs an analyzer measured, as the simulator takes them (no hops, no optimizer).
pipeline::PipelineCosts simulatorCosts(const PerLayerCosts& measured) {
    pipeline::PipelineCosts costs;
    costs.forwardMs = measured.forwardMs;
    costs.recomputeMs = measured.recomputeMs;
    costs.backwardMs = measured.backwardMs;
    costs.headForwardMs = measured.headForwardMs;
    costs.headBackwardMs = measured.headBackwardMs;
    return costs;
}

// The simulator's costs from the jobs an executed pipeline ran (analyzers/PipelineReplay).
pipeline::PipelineCosts replayedCosts(const TraceModel& model,
                                      const pipeline::SimulationSpec& plan) {
    ReplayPlan shape;
    shape.roundPipe = plan.schedule == pipeline::Schedule::kRoundPipe;
    shape.layers = plan.costs.layers();
    shape.forwardPartition = plan.forwardPartition;
    shape.backwardPartition = plan.backwardPartition;
    pipeline::PipelineCosts costs = simulatorCosts(measureReplayCosts(model, shape));
    costs.hopMs = plan.costs.hopMs;
    return costs;
}

// The plan as a cost file: its costs measured in `model`, its shape and partitions.
void takePlan(const TraceModel& model, const pipeline::SimulationSpec& plan, ReplayedPipeline& r) {
    r.file.costs = replayedCosts(model, plan);
    r.file.workers = plan.workers;
    r.file.microbatches = plan.microbatches;
    r.schedule = pipeline::toString(plan.schedule);
    if (plan.schedule == pipeline::Schedule::kRoundPipe) {
        r.file.partitions["roundpipe-forward"] = plan.forwardPartition;
        r.file.partitions["roundpipe-backward"] = plan.backwardPartition;
    } else {
        r.file.partitions[r.schedule] = plan.forwardPartition;
    }
}

}  // namespace

ReplayedPipeline replayPipelineRun(const std::string& db, RunId run) {
    const TraceModel model = TraceReader(db).loadRun(run);
    const nlohmann::json config = parseStoredRunJson(model.run(), StoredRunColumn::kConfig);
    if (!config.contains("pipeline_plan")) {
        throw inputError(fmt::format(
            "run {} in '{}' is not an executed pipeline (no pipeline_plan): record one with "
            "`glueprof ab --opt roundpipe`",
            run, db));
    }
    ReplayedPipeline r;
    try {
        takePlan(model, pipeline::specFromJson(config["pipeline_plan"].dump()), r);
    } catch (const std::invalid_argument& e) {
        throw inputError(fmt::format("run {}: {}", run, e.what()));
    }
    const BubbleResult executed = analyzeBubbles(model);
    r.executed.run = run;
    r.executed.label = model.run().label;
    r.executed.makespanMs = executed.medianStepMakespanMs();
    r.executed.bubbleRatio = executed.ratio;
    r.executed.steps = executed.stepMakespansNs.size();
    return r;
}

MeasuredPreset measurePresetCosts(const TrainConfig& config, const std::string& preset,
                                  CaptureSession& session, const ProgressCallback& progress) {
    const InterruptionScope interruptible;  // Ctrl-C: the measuring run ends aborted
    const RunId run = runSingle(config, {}, 1, 2, session, progress);
    session.writer().flush();
    const LayerCostsResult layers =
        measureLayerCosts(TraceReader(session.writer().path()).loadRun(run));
    if (!layers.complete()) {
        throw inputError(
            "the measured run has no layer ranges to take costs from: the preset must have layers");
    }
    MeasuredPreset m;
    m.costs = simulatorCosts(layers);
    m.measured = {preset,
                  run,
                  m.costs.layers(),
                  layers.microbatchesMeasured,
                  m.costs.forwardMs[0],
                  m.costs.backwardMs[0],
                  m.costs.headForwardMs,
                  m.costs.headBackwardMs};
    return m;
}

}  // namespace glueprof
