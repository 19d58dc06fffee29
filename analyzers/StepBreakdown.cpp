#include "analyzers/StepBreakdown.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "analyzers/Intervals.h"
#include "analyzers/Statistics.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

namespace {

constexpr double kNsPerMs = 1e6;

std::size_t indexOf(TimingMetric metric) { return static_cast<std::size_t>(metric); }

bool isDeviceWork(EventKind kind) {
    return kind == EventKind::kKernel || kind == EventKind::kMemcpy || kind == EventKind::kMemset;
}

// Where each launch's device work ran: CUPTI correlation -> [first start, last end].
std::unordered_map<std::int64_t, Interval> deviceWorkByCorrelation(const TraceModel& trace) {
    std::unordered_map<std::int64_t, Interval> work;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        if (trace.lanes()[lane].kind != LaneKind::kCudaStream) continue;
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (!isDeviceWork(e.kind) || e.correlation == 0) continue;
            auto [it, added] = work.try_emplace(e.correlation, Interval{e.startNs, e.endNs});
            if (!added) {
                it->second.start = std::min(it->second.start, e.startNs);
                it->second.end = std::max(it->second.end, e.endNs);
            }
        }
    }
    return work;
}

// The span of the device work launched on `lane` within [start, end], if any.
std::optional<Interval> launchedSpan(const TraceModel& trace, std::size_t lane, TimestampNs start,
                                     TimestampNs end,
                                     const std::unordered_map<std::int64_t, Interval>& work) {
    const std::vector<Event>& events = trace.eventsOnLane(lane);
    auto first = std::lower_bound(events.begin(), events.end(), start,
                                  [](const Event& e, TimestampNs t) { return e.startNs < t; });
    std::optional<Interval> span;
    for (auto it = first; it != events.end() && it->startNs <= end; ++it) {
        if (it->kind != EventKind::kRuntime) continue;
        auto found = work.find(it->correlation);
        if (found == work.end()) continue;
        if (!span) span = found->second;
        span->start = std::min(span->start, found->second.start);
        span->end = std::max(span->end, found->second.end);
    }
    return span;
}

// Per step and metric, the spans of device work its ranges launched.
using DeviceSpans =
    std::map<std::int32_t, std::array<std::vector<Interval>, kTimingMetrics.size()>>;

void addPhaseSpans(const TraceModel& trace, const std::unordered_map<std::int64_t, Interval>& work,
                   DeviceSpans& spans) {
    const auto forward = trace.findName(names::kForward);
    const auto backward = trace.findName(names::kBackward);
    const auto optimizer = trace.findName(names::kOptimizer);
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (e.kind != EventKind::kRange || e.step == kNoTag) continue;
            std::optional<TimingMetric> metric;
            if (forward && e.name == *forward) metric = TimingMetric::kForward;
            if (backward && e.name == *backward) metric = TimingMetric::kBackward;
            if (optimizer && e.name == *optimizer) metric = TimingMetric::kOptimizer;
            if (!metric) continue;
            if (auto span = launchedSpan(trace, lane, e.startNs, e.endNs, work)) {
                spans[e.step][indexOf(*metric)].push_back(*span);
            }
        }
    }
}

// A step's device span: what every host lane launched between the step's start and end.
void addStepSpans(const TraceModel& trace, const std::unordered_map<std::int64_t, Interval>& work,
                  DeviceSpans& spans) {
    for (const StepInfo& s : trace.steps()) {
        for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
            if (trace.lanes()[lane].kind == LaneKind::kCudaStream) continue;
            if (auto span = launchedSpan(trace, lane, s.startNs, s.endNs, work)) {
                spans[s.step][indexOf(TimingMetric::kStep)].push_back(*span);
            }
        }
    }
}

void addDeviceTimes(const TraceModel& trace, std::map<std::int32_t, StepTimes>& byStep) {
    const std::unordered_map<std::int64_t, Interval> work = deviceWorkByCorrelation(trace);
    if (work.empty()) return;
    DeviceSpans spans;
    addPhaseSpans(trace, work, spans);
    addStepSpans(trace, work, spans);
    for (auto& [step, times] : byStep) {
        auto found = spans.find(step);
        for (TimingMetric metric : kTimingMetrics) {
            const std::size_t m = indexOf(metric);
            const bool some = found != spans.end() && !found->second[m].empty();
            times.deviceMs[m] =
                some ? static_cast<double>(totalLength(unionOf(found->second[m]))) / kNsPerMs
                     : times.hostValue(metric);
            times.hasDeviceTimes = times.hasDeviceTimes || some;
        }
    }
}

}  // namespace

double StepTimes::hostValue(TimingMetric metric) const {
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

double StepTimes::value(TimingMetric metric) const {
    return hasDeviceTimes ? deviceMs[indexOf(metric)] : hostValue(metric);
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

double StepBreakdownResult::medianHost(TimingMetric metric) const {
    std::vector<double> values;
    for (const StepTimes& t : measured) values.push_back(t.hostValue(metric));
    return glueprof::median(values);
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
    addDeviceTimes(trace, byStep);
    StepBreakdownResult result;
    std::array<std::vector<double>, kTimingMetrics.size()> values;
    for (const auto& [step, times] : byStep) {
        if (times.warmup) {
            result.warmup.push_back(times);
            continue;
        }
        result.measured.push_back(times);
        result.hasDeviceTimes = result.hasDeviceTimes || times.hasDeviceTimes;
        for (TimingMetric m : kTimingMetrics) values[indexOf(m)].push_back(times.value(m));
    }
    result.medianWallMs = glueprof::median(values[indexOf(TimingMetric::kStep)]);
    result.medianForwardMs = glueprof::median(values[indexOf(TimingMetric::kForward)]);
    result.medianBackwardMs = glueprof::median(values[indexOf(TimingMetric::kBackward)]);
    result.medianOptimizerMs = glueprof::median(values[indexOf(TimingMetric::kOptimizer)]);
    return result;
}

}  // namespace glueprof
