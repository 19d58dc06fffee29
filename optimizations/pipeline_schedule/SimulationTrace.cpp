#include "optimizations/pipeline_schedule/SimulationTrace.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
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

SimulationSpec specFromJson(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    try {
        SimulationSpec spec;
        spec.schedule = parseSchedule(j.at("schedule").get<std::string>());
        spec.workers = j.at("workers").get<int>();
        spec.microbatches = j.at("microbatches").get<int>();
        spec.iterations = j.value("iterations", 1);
        spec.optimizer = j.value("optimizer", std::string("synchronous")) == "asynchronous" ? OptimizerMode::kAsynchronous
                                                                                          : OptimizerMode::kSynchronous;
        spec.forwardPartition = j.at("forward_partition").get<std::vector<int>>();
        if (j.contains("backward_partition")) spec.backwardPartition = j["backward_partition"].get<std::vector<int>>();
        spec.costs.forwardMs = j.at("forward_ms").get<std::vector<double>>();
        spec.costs.backwardMs = j.at("backward_ms").get<std::vector<double>>();
        if (j.contains("recompute_ms")) spec.costs.recomputeMs = j["recompute_ms"].get<std::vector<double>>();
        spec.costs.headForwardMs = j.at("head_forward_ms").get<double>();
        spec.costs.headBackwardMs = j.at("head_backward_ms").get<double>();
        spec.costs.hopMs = j.value("hop_ms", 0.0);
        spec.costs.optimizerMs = j.value("optimizer_ms", 0.0);
        return spec;
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(fmt::format("not a pipeline plan: {}", e.what()));
    }
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
