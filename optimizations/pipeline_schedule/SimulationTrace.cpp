#include "optimizations/pipeline_schedule/SimulationTrace.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "profiler/core/TraceNames.h"

namespace glueprof::pipeline {

namespace {
TimestampNs toNs(double ms) { return static_cast<TimestampNs>(std::llround(ms * 1e6)); }
}  // namespace

std::string specJson(const SimulationSpec& spec) {
    const PipelineCosts& c = spec.costs;
    nlohmann::json j = {{"schedule", toString(spec.schedule)},
                        {"workers", spec.workers},
                        {"microbatches", spec.microbatches},
                        {"iterations", spec.iterations},
                        {"optimizer", spec.optimizer == OptimizerMode::kSynchronous ? "synchronous" : "asynchronous"},
                        {"forward_partition", spec.forwardPartition},
                        {"layers", c.layers()},
                        {"forward_ms", c.forwardMs},
                        {"backward_ms", c.backwardMs},
                        {"head_forward_ms", c.headForwardMs},
                        {"head_backward_ms", c.headBackwardMs},
                        {"hop_ms", c.hopMs},
                        {"optimizer_ms", c.optimizerMs}};
    if (!c.recomputeMs.empty()) j["recompute_ms"] = c.recomputeMs;
    if (spec.schedule == Schedule::kRoundPipe) j["backward_partition"] = spec.backwardPartition;
    return j.dump();
}

RunId recordSimulation(TraceWriter& writer, const SimulationSpec& spec, const SimulationResult& result,
                       const std::string& label, const std::string& preset) {
    RunInfo info;
    info.label = label;
    info.preset = preset;
    info.device = "simulated";
    info.configJson = specJson(spec);
    info.togglesJson = nlohmann::json::array({toString(spec.schedule)}).dump();
    const RunId run = writer.beginRun(info);
    std::vector<LaneId> lanes;
    for (int w = 0; w < spec.workers; ++w) {
        lanes.push_back(writer.addLane(run, LaneKind::kSimulatedWorker, fmt::format("worker {}", w), w, w));
    }
    const StringId forward = writer.intern(names::kForward);
    const StringId recompute = writer.intern(names::kRecompute);
    const StringId backward = writer.intern(names::kBackward);
    for (const SimOp& op : result.ops) {
        if (op.endMs <= op.startMs) continue;  // a stage of 0 layers: nothing ran
        Event e;
        e.run = run;
        e.lane = lanes[static_cast<std::size_t>(op.worker)];
        e.kind = EventKind::kRange;
        e.category = Category::kMath;
        e.name = op.kind == SimOp::Kind::kForward ? forward : op.kind == SimOp::Kind::kRecompute ? recompute : backward;
        e.startNs = toNs(op.startMs);
        e.endNs = toNs(op.endMs);
        e.step = op.iteration;
        e.layer = op.stage;
        e.microbatch = op.microbatch;
        writer.record(e);
    }
    double start = 0.0;
    for (std::size_t i = 0; i < result.iterationEndMs.size(); ++i) {
        writer.recordStep(StepRecord{run, StepInfo{static_cast<std::int32_t>(i), toNs(start), toNs(result.iterationEndMs[i]),
                                                   false, 1, 0.0, 0}});
        start = result.iterationEndMs[i];
    }
    writer.endRun(run, RunStatus::kComplete);
    return run;
}

}  // namespace glueprof::pipeline
