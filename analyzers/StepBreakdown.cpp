#include "analyzers/StepBreakdown.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "analyzers/Intervals.h"
#include "analyzers/Statistics.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

namespace {

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

// The span of the device work launched by any host thread within [start, end], if any.
std::optional<Interval> launchedSpan(const TraceModel& trace, TimestampNs start, TimestampNs end,
                                     const std::unordered_map<std::int64_t, Interval>& work) {
    std::optional<Interval> span;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        if (trace.lanes()[lane].kind != LaneKind::kHostThread) continue;
        const std::vector<Event>& events = trace.eventsOnLane(lane);
        auto first = std::lower_bound(events.begin(), events.end(), start,
                                      [](const Event& e, TimestampNs t) { return e.startNs < t; });
        for (auto it = first; it != events.end() && it->startNs <= end; ++it) {
            if (it->kind != EventKind::kRuntime) continue;
            auto found = work.find(it->correlation);
            if (found == work.end()) continue;
            if (!span) span = found->second;
            span->start = std::min(span->start, found->second.start);
            span->end = std::max(span->end, found->second.end);
        }
    }
    return span;
}

// The ranges that time a step's phases: the reference trainer's forward, backward and optimizer.
// A trace without the trainer's optimizer range (a program `glueprof profile` ran, an imported
// torch.profiler trace) times its optimizer by torch's own ranges, Optimizer.step#CLASS.step.
class PhaseRanges {
  public:
    explicit PhaseRanges(const TraceModel& trace)
        : m_trace(trace),
          m_forward(trace.findName(names::kForward)),
          m_backward(trace.findName(names::kBackward)),
          m_optimizer(trace.findName(names::kOptimizer)) {}

    std::optional<TimingMetric> of(const Event& range) const {
        if (m_forward && range.name == *m_forward) return TimingMetric::kForward;
        if (m_backward && range.name == *m_backward) return TimingMetric::kBackward;
        if (m_optimizer && range.name == *m_optimizer) return TimingMetric::kOptimizer;
        if (!m_optimizer && isTorchOptimizerStep(range.name)) return TimingMetric::kOptimizer;
        return std::nullopt;
    }

  private:
    bool isTorchOptimizerStep(StringId name) const {
        auto [it, added] = m_torchSteps.try_emplace(name, false);
        if (added) it->second = m_trace.name(name).rfind("Optimizer.step#", 0) == 0;
        return it->second;
    }

    const TraceModel& m_trace;
    std::optional<StringId> m_forward, m_backward, m_optimizer;
    mutable std::unordered_map<StringId, bool> m_torchSteps;
};

// Per step and metric, the spans of device work its ranges launched.
using DeviceSpans =
    std::map<std::int32_t, std::array<std::vector<Interval>, kTimingMetrics.size()>>;

void addPhaseSpans(const TraceModel& trace, const std::unordered_map<std::int64_t, Interval>& work,
                   DeviceSpans& spans) {
    const PhaseRanges phases(trace);
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        // Pipeline workers launch at the same time on their own threads: no phase of theirs can be
        // told apart by time, so they keep their host figures.
        if (trace.lanes()[lane].kind != LaneKind::kHostThread) continue;
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (e.kind != EventKind::kRange || e.step == kNoTag) continue;
            const std::optional<TimingMetric> metric = phases.of(e);
            if (!metric) continue;
            if (auto span = launchedSpan(trace, e.startNs, e.endNs, work)) {
                spans[e.step][indexOf(*metric)].push_back(*span);
            }
        }
    }
}

// A step's device time: from where the step before it completed (or its own start, when that is
// later) to where it completes, the later of its host end and the end of the last device work it
// launched. Steps so timed never overlap; back to back they sum to the span from the first step's
// start to the last one's completion: a GPU queue running behind the host puts each step's work in
// that step, not also in the next one's host window. A step whose work all finished before the
// step ahead of it completed has no device time of its own (it keeps its host figure).
void addStepSpans(const TraceModel& trace, const std::unordered_map<std::int64_t, Interval>& work,
                  DeviceSpans& spans) {
    std::vector<const StepInfo*> ordered;
    for (const StepInfo& s : trace.steps()) ordered.push_back(&s);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const StepInfo* a, const StepInfo* b) { return a->startNs < b->startNs; });
    std::optional<TimestampNs> previousCompletion;
    for (const StepInfo* s : ordered) {
        const std::optional<Interval> span = launchedSpan(trace, s->startNs, s->endNs, work);
        TimestampNs completion = std::max(s->endNs, span ? span->end : s->endNs);
        TimestampNs start = s->startNs;
        if (previousCompletion) {
            completion = std::max(completion, *previousCompletion);
            start = std::max(start, *previousCompletion);
        }
        if (span && completion > start)
            spans[s->step][indexOf(TimingMetric::kStep)].push_back(Interval{start, completion});
        previousCompletion = completion;
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
        if (found == spans.end()) continue;
        for (TimingMetric metric : kTimingMetrics) {
            const std::size_t m = indexOf(metric);
            if (found->second[m].empty()) continue;
            times.deviceMs[m] =
                static_cast<double>(totalLength(unionOf(found->second[m]))) / kNsPerMs;
            times.deviceFound[m] = true;
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

double StepTimes::value(TimingMetric metric, bool device) const {
    return device ? deviceMs[indexOf(metric)] : hostValue(metric);
}

bool StepTimes::hasDeviceTimes() const {
    for (bool found : deviceFound) {
        if (found) return true;
    }
    return false;
}

bool StepBreakdownResult::deviceTimed(TimingMetric metric) const {
    if (measured.empty()) return false;
    for (const StepTimes& t : measured) {
        if (!t.deviceFound[indexOf(metric)]) return false;
    }
    return true;
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
    const PhaseRanges phases(trace);
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (e.kind != EventKind::kRange) continue;
            auto it = byStep.find(e.step);
            if (it == byStep.end()) continue;
            const std::optional<TimingMetric> metric = phases.of(e);
            if (!metric) continue;
            const double ms = static_cast<double>(e.durationNs()) / kNsPerMs;
            if (*metric == TimingMetric::kForward) it->second.forwardMs += ms;
            if (*metric == TimingMetric::kBackward) it->second.backwardMs += ms;
            if (*metric == TimingMetric::kOptimizer) it->second.optimizerMs += ms;
        }
    }
    addDeviceTimes(trace, byStep);
    StepBreakdownResult result;
    for (const auto& [step, times] : byStep) {
        (times.warmup ? result.warmup : result.measured).push_back(times);
        if (!times.warmup) result.hasDeviceTimes = result.hasDeviceTimes || times.hasDeviceTimes();
    }
    std::array<double, kTimingMetrics.size()> medians{};
    for (TimingMetric m : kTimingMetrics) {
        const bool device = result.deviceTimed(m);
        std::vector<double> values;
        for (const StepTimes& t : result.measured) values.push_back(t.value(m, device));
        medians[indexOf(m)] = glueprof::median(values);
    }
    result.medianWallMs = medians[indexOf(TimingMetric::kStep)];
    result.medianForwardMs = medians[indexOf(TimingMetric::kForward)];
    result.medianBackwardMs = medians[indexOf(TimingMetric::kBackward)];
    result.medianOptimizerMs = medians[indexOf(TimingMetric::kOptimizer)];
    return result;
}

}  // namespace glueprof
