#include "analyzers/TargetMetrics.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "analyzers/GlueOverhead.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

namespace {

// Total time of the events named `name` of `kind`, per step.
std::map<std::int32_t, TimestampNs> sumByStep(const TraceModel& trace, EventKind kind,
                                              const char* name) {
    std::map<std::int32_t, TimestampNs> total;
    const std::optional<StringId> id = trace.findName(name);
    if (!id) return total;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (e.kind == kind && e.name == *id && e.step != kNoTag)
                total[e.step] += e.durationNs();
        }
    }
    return total;
}

// First start to last end of the step's forward, recompute and backward work on the pipeline
// workers, per step: the makespan the bubble analyzer (PipelineBubbles) measures.
std::map<std::int32_t, TimestampNs> workerSpanByStep(const TraceModel& trace) {
    std::map<std::int32_t, std::pair<TimestampNs, TimestampNs>> span;
    std::vector<StringId> work;
    for (const char* name : {names::kForward, names::kRecompute, names::kBackward}) {
        if (auto id = trace.findName(name)) work.push_back(*id);
    }
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        const LaneKind kind = trace.lanes()[lane].kind;
        if (kind != LaneKind::kPipelineWorker && kind != LaneKind::kSimulatedWorker) continue;
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (e.step == kNoTag || e.kind != EventKind::kRange ||
                std::find(work.begin(), work.end(), e.name) == work.end())
                continue;
            auto [it, added] = span.try_emplace(e.step, e.startNs, e.endNs);
            if (!added) {
                it->second.first = std::min(it->second.first, e.startNs);
                it->second.second = std::max(it->second.second, e.endNs);
            }
        }
    }
    std::map<std::int32_t, TimestampNs> length;
    for (const auto& [step, s] : span) length[step] = s.second - s.first;
    return length;
}

}  // namespace

std::vector<TargetSample> targetPerStep(const TraceModel& trace, TargetMetric metric,
                                        const std::string& range) {
    std::map<std::int32_t, TimestampNs> byStep;
    switch (metric) {
        case TargetMetric::kNone:
            return {};
        case TargetMetric::kMaskBuild:
            byStep = sumByStep(trace, EventKind::kRange, names::kMaskBuild);
            break;
        case TargetMetric::kRouting:
            byStep = sumByStep(trace, EventKind::kRange, names::kMoeRouting);
            break;
        case TargetMetric::kReloadWait:
            byStep = sumByStep(trace, EventKind::kWait, names::kWaitReload);
            break;
        case TargetMetric::kCalibrationDelay:
            byStep = sumByStep(trace, EventKind::kRange, names::kCalibrationDelay);
            break;
        case TargetMetric::kUserRange:
            byStep = sumByStep(trace, EventKind::kRange, range.c_str());
            break;
        case TargetMetric::kMakespan:
            byStep = workerSpanByStep(trace);
            break;
        case TargetMetric::kExposedComm:
            for (const GlueStep& s : analyzeGlueOverhead(trace).steps)
                byStep[s.step] = s.partNs[static_cast<std::size_t>(GluePart::kComm)];
            break;
    }
    std::vector<TargetSample> samples;
    for (const StepInfo& s : trace.steps()) {
        if (s.warmup) continue;
        auto found = byStep.find(s.step);
        const TimestampNs ns = found != byStep.end() ? found->second : 0;
        samples.push_back(TargetSample{s.step, s.block, static_cast<double>(ns) / kNsPerMs});
    }
    return samples;
}

}  // namespace glueprof
