#include "optimizations/pipeline_schedule/SimulationTrace.h"
#include "optimizations/pipeline_schedule/CostKeys.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "profiler/core/TraceNames.h"

namespace glueprof::pipeline {

namespace {

TimestampNs toNs(double ms) { return static_cast<TimestampNs>(std::llround(ms * 1e6)); }

const char* rangeName(const SimOp& op) {
    switch (op.kind) {
        case SimOp::Kind::kForward:
            return names::kForward;
        case SimOp::Kind::kRecompute:
            return names::kRecompute;
        case SimOp::Kind::kBackward:
            return names::kBackward;
    }
    return names::kForward;
}

// What a simulation is as a trace, for the store and for an in-memory model alike: one range per op
// that ran (layer tag = stage, step = iteration) and one step per iteration.
template <typename AddRange, typename AddStep>
void emitTrace(const SimulationResult& result, AddRange&& addRange, AddStep&& addStep) {
    for (const SimOp& op : result.ops) {
        if (op.endMs <= op.startMs) continue;  // a stage of 0 layers: nothing ran
        addRange(op, rangeName(op), toNs(op.startMs), toNs(op.endMs));
    }
    double start = 0.0;
    for (std::size_t i = 0; i < result.iterationEndMs.size(); ++i) {
        addStep(StepInfo{static_cast<std::int32_t>(i), toNs(start), toNs(result.iterationEndMs[i]),
                         false, 1, 0.0, 0});
        start = result.iterationEndMs[i];
    }
}

}  // namespace

std::string specJson(const SimulationSpec& spec) {
    const PipelineCosts& c = spec.costs;
    nlohmann::json j = {
        {"schedule", toString(spec.schedule)},
        {"workers", spec.workers},
        {"microbatches", spec.microbatches},
        {"iterations", spec.iterations},
        {"optimizer",
         spec.optimizer == OptimizerMode::kSynchronous ? "synchronous" : "asynchronous"},
        {"forward_partition", spec.forwardPartition},
        {costkeys::kLayers, c.layers()},
        {costkeys::kForwardMs, c.forwardMs},
        {costkeys::kBackwardMs, c.backwardMs},
        {costkeys::kHeadForwardMs, c.headForwardMs},
        {costkeys::kHeadBackwardMs, c.headBackwardMs},
        {costkeys::kHopMs, c.hopMs},
        {costkeys::kOptimizerMs, c.optimizerMs}};
    if (!c.recomputeMs.empty()) j[costkeys::kRecomputeMs] = c.recomputeMs;
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
        spec.optimizer = j.value("optimizer", std::string("synchronous")) == "asynchronous"
                             ? OptimizerMode::kAsynchronous
                             : OptimizerMode::kSynchronous;
        spec.forwardPartition = j.at("forward_partition").get<std::vector<int>>();
        if (j.contains("backward_partition"))
            spec.backwardPartition = j["backward_partition"].get<std::vector<int>>();
        spec.costs.forwardMs = j.at(costkeys::kForwardMs).get<std::vector<double>>();
        spec.costs.backwardMs = j.at(costkeys::kBackwardMs).get<std::vector<double>>();
        if (j.contains(costkeys::kRecomputeMs))
            spec.costs.recomputeMs = j[costkeys::kRecomputeMs].get<std::vector<double>>();
        spec.costs.headForwardMs = j.at(costkeys::kHeadForwardMs).get<double>();
        spec.costs.headBackwardMs = j.at(costkeys::kHeadBackwardMs).get<double>();
        spec.costs.hopMs = j.value(costkeys::kHopMs, 0.0);
        spec.costs.optimizerMs = j.value(costkeys::kOptimizerMs, 0.0);
        return spec;
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(fmt::format("not a pipeline plan: {}", e.what()));
    }
}

TraceModel simulationModel(const SimulationSpec& spec, const SimulationResult& result) {
    RunSummary run;
    run.label = std::string("simulate:") + toString(spec.schedule);
    run.device = "simulated";
    run.configJson = specJson(spec);
    run.identity.kind = RunKind::kSimulated;
    run.identity.schedule = toString(spec.schedule);
    TraceModelBuilder b(run);
    std::vector<std::size_t> lanes;
    for (int w = 0; w < spec.workers; ++w)
        lanes.push_back(b.addLane(LaneKind::kSimulatedWorker, fmt::format("worker {}", w), w, w));
    emitTrace(
        result,
        [&](const SimOp& op, const char* name, TimestampNs start, TimestampNs end) {
            b.addEvent(lanes[static_cast<std::size_t>(op.worker)], EventKind::kRange,
                       Category::kMath, name, start, end, op.iteration, op.stage)
                .microbatch = op.microbatch;
        },
        [&](const StepInfo& step) { b.addStep(step); });
    return std::move(b).build();
}

RunId recordSimulation(TraceWriter& writer, const SimulationSpec& spec,
                       const SimulationResult& result, const std::string& label,
                       const std::string& preset) {
    RunInfo info;
    info.label = label;
    info.preset = preset;
    info.device = "simulated";
    info.configJson = specJson(spec);
    info.togglesJson = nlohmann::json::array({toString(spec.schedule)}).dump();
    info.identity.kind = RunKind::kSimulated;
    info.identity.schedule = toString(spec.schedule);
    const RunId run = writer.beginRun(info);
    std::vector<LaneId> lanes;
    for (int w = 0; w < spec.workers; ++w) {
        lanes.push_back(
            writer.addLane(run, LaneKind::kSimulatedWorker, fmt::format("worker {}", w), w, w));
    }
    emitTrace(
        result,
        [&](const SimOp& op, const char* name, TimestampNs start, TimestampNs end) {
            Event e;
            e.run = run;
            e.lane = lanes[static_cast<std::size_t>(op.worker)];
            e.kind = EventKind::kRange;
            e.category = Category::kMath;
            e.name = writer.intern(name);
            e.startNs = start;
            e.endNs = end;
            e.step = op.iteration;
            e.layer = op.stage;
            e.microbatch = op.microbatch;
            writer.record(e);
        },
        [&](const StepInfo& step) {
            writer.recordStep(StepRecord{run, step});
        });
    writer.endRun(run, RunStatus::kComplete);
    return run;
}

}  // namespace glueprof::pipeline
