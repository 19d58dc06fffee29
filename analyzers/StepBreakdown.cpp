#include "analyzers/StepBreakdown.h"

#include <map>
#include <string>

#include "analyzers/Statistics.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

namespace {
constexpr double kNsPerMs = 1e6;
}

StepBreakdownResult analyzeStepBreakdown(const TraceModel& trace) {
    std::map<std::int32_t, StepTimes> byStep;
    for (const StepInfo& s : trace.steps()) {
        StepTimes& t = byStep[s.step];
        t.step = s.step;
        t.block = s.block;
        t.warmup = s.warmup;
        t.wallMs = static_cast<double>(s.endNs - s.startNs) / kNsPerMs;
        t.loss = s.loss;
    }
    auto forward = trace.findName(names::kForward);
    auto backward = trace.findName(names::kBackward);
    auto optimizer = trace.findName(names::kOptimizer);
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (e.kind != EventKind::kRange) continue;
            auto it = byStep.find(e.step);
            if (it == byStep.end()) continue;
            double ms = static_cast<double>(e.durationNs()) / kNsPerMs;
            if (forward && e.name == *forward)
                it->second.forwardMs += ms;
            else if (backward && e.name == *backward)
                it->second.backwardMs += ms;
            else if (optimizer && e.name == *optimizer)
                it->second.optimizerMs += ms;
        }
    }
    StepBreakdownResult result;
    std::vector<double> wall, fwd, bwd, opt;
    for (const auto& [step, times] : byStep) {
        if (times.warmup) {
            result.warmup.push_back(times);
            continue;
        }
        result.measured.push_back(times);
        wall.push_back(times.wallMs);
        fwd.push_back(times.forwardMs);
        bwd.push_back(times.backwardMs);
        opt.push_back(times.optimizerMs);
    }
    result.medianWallMs = median(wall);
    result.medianForwardMs = median(fwd);
    result.medianBackwardMs = median(bwd);
    result.medianOptimizerMs = median(opt);
    return result;
}

double StepTimes::value(TimingMetric metric) const {
    switch (metric) {
        case TimingMetric::kStep:
            return wallMs;
        case TimingMetric::kForward:
            return forwardMs;
        case TimingMetric::kBackward:
            return backwardMs;
        case TimingMetric::kOptimizer:
            return optimizerMs;
    }
    return 0.0;
}

double StepBreakdownResult::median(TimingMetric metric) const {
    switch (metric) {
        case TimingMetric::kStep:
            return medianWallMs;
        case TimingMetric::kForward:
            return medianForwardMs;
        case TimingMetric::kBackward:
            return medianBackwardMs;
        case TimingMetric::kOptimizer:
            return medianOptimizerMs;
    }
    return 0.0;
}

}  // namespace glueprof
