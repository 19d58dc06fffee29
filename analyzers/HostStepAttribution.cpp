#include "analyzers/HostStepAttribution.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "analyzers/HtaWindow.h"
#include "analyzers/Intervals.h"
#include "analyzers/Statistics.h"

namespace glueprof {

const char* toString(HostCause cause) {
    switch (cause) {
        case HostCause::kWouldSync:
            return "in would-sync ops (.item(), .tolist(), nonzero: a sync point on a GPU)";
        case HostCause::kData:
            return "loading data (the DataLoader's fetch on the step's thread)";
        case HostCause::kOptimizer:
            return "in the optimizer (step, zero_grad)";
        case HostCause::kGlue:
            return "in glue ranges (masks, metadata, routing)";
        case HostCause::kCopies:
            return "in copy ops (copy_, to, clone, contiguous)";
        case HostCause::kMath:
            return "in other ops (the model's math)";
        case HostCause::kCapture:
            return "the capture's own cost (estimated from its calibrated cost per op)";
        case HostCause::kPython:
        case HostCause::kCount:
            break;
    }
    return "between ops (the program's Python)";
}

const char* hostCauseKey(HostCause cause) {
    static constexpr std::array<const char*, kHostCauseCount> kKeys = {
        "would_sync", "data", "optimizer", "glue", "copies", "math", "capture", "python"};
    const auto c = static_cast<std::size_t>(cause);
    return c < kKeys.size() ? kKeys[c] : "python";
}

TimestampNs HostStepAttribution::sum() const {
    TimestampNs total = 0;
    for (TimestampNs part : ns) total += part;
    return total;
}

namespace {

bool isCopyOp(const std::string& name) {
    static const std::set<std::string> kCopies = {"aten::copy_", "aten::to", "aten::_to_copy",
                                                  "aten::clone", "aten::contiguous"};
    return kCopies.count(name) != 0;
}

}  // namespace

HostStepAttributionResult attributeHostSteps(const TraceModel& trace,
                                             std::optional<double> nsPerOp) {
    HostStepAttributionResult result;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!isDeviceWorkLane(trace.lanes()[i])) continue;
        for (const Event& e : trace.eventsOnLane(i))
            if (isDeviceWork(e)) return result;  // a GPU trace: StepAttribution's
    }
    const std::set<std::int32_t> measured = trace.measuredSteps();
    std::vector<Interval> windows;
    for (const StepInfo& s : trace.steps())
        if (measured.count(s.step) != 0 && s.endNs > s.startNs)
            windows.push_back({s.startNs, s.endNs});
    const IntervalSet inSteps = unionOf(windows);
    if (inSteps.empty()) return result;
    // The step's thread: the host thread with the most op time inside the measured steps.
    std::size_t lane = trace.lanes().size();
    TimestampNs most = 0;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        std::vector<Interval> ops;
        for (const Event& e : trace.eventsOnLane(i))
            if (e.kind == EventKind::kOp) ops.push_back({e.startNs, e.endNs});
        const TimestampNs time = totalLength(intersectionOf(unionOf(std::move(ops)), inSteps));
        if (time > most) {
            most = time;
            lane = i;
        }
    }
    if (lane == trace.lanes().size()) return result;
    result.thread = trace.lanes()[lane].name;
    std::array<std::vector<Interval>, kHostCauseCount> parts;
    std::vector<Interval> ops;
    std::unordered_map<StringId, bool> copies;
    std::map<std::int32_t, std::int64_t> opsPerStep;  // the ops each step recorded (nested too)
    for (const Event& e : trace.eventsOnLane(lane)) {
        const Interval span{e.startNs, e.endNs};
        if (e.kind == EventKind::kOp) {
            ops.push_back(span);
            if ((e.flags & kFlagWouldSync) != 0)
                parts[static_cast<std::size_t>(HostCause::kWouldSync)].push_back(span);
            auto [copy, added] = copies.try_emplace(e.name, false);
            if (added) copy->second = isCopyOp(trace.name(e.name));
            if (copy->second) parts[static_cast<std::size_t>(HostCause::kCopies)].push_back(span);
        } else if (e.kind == EventKind::kRange) {
            if (e.category == Category::kData)
                parts[static_cast<std::size_t>(HostCause::kData)].push_back(span);
            if (e.category == Category::kOptimizer)
                parts[static_cast<std::size_t>(HostCause::kOptimizer)].push_back(span);
            if (e.category == Category::kGlue)
                parts[static_cast<std::size_t>(HostCause::kGlue)].push_back(span);
        }
    }
    // The capture's cost falls on every op it records, on any thread of the step's: counted on
    // the step's thread, the one whose time is the step's.
    for (const Event& e : trace.eventsOnLane(lane))
        if (e.kind == EventKind::kOp && measured.count(e.step) != 0) ++opsPerStep[e.step];
    std::array<IntervalSet, kHostCauseCount> sets;
    for (std::size_t c = 0; c < kHostCauseCount; ++c) sets[c] = unionOf(std::move(parts[c]));
    sets[static_cast<std::size_t>(HostCause::kMath)] = unionOf(std::move(ops));
    result.captureEstimated = nsPerOp.has_value();
    std::vector<std::array<double, kHostCauseCount>> perStep;
    for (const StepInfo& s : trace.steps()) {
        if (measured.count(s.step) == 0 || s.endNs <= s.startNs) continue;
        HostStepAttribution a;
        a.step = s.step;
        a.wallNs = s.endNs - s.startNs;
        IntervalSet left{Interval{s.startNs, s.endNs}};
        for (HostCause cause : {HostCause::kWouldSync, HostCause::kData, HostCause::kOptimizer,
                                HostCause::kGlue, HostCause::kCopies, HostCause::kMath}) {
            const IntervalSet taken = intersectionOf(left, sets[static_cast<std::size_t>(cause)]);
            left = differenceOf(left, taken);
            a.ns[static_cast<std::size_t>(cause)] = totalLength(taken);
        }
        const TimestampNs between = totalLength(left);
        const auto ops = opsPerStep.find(s.step);
        const double estimate =
            nsPerOp && ops != opsPerStep.end() ? *nsPerOp * static_cast<double>(ops->second) : 0.0;
        const TimestampNs capture =
            std::min(between, static_cast<TimestampNs>(std::max(0.0, estimate)));
        a.ns[static_cast<std::size_t>(HostCause::kCapture)] = capture;
        a.ns[static_cast<std::size_t>(HostCause::kPython)] = between - capture;
        std::array<double, kHostCauseCount> ms{};
        for (std::size_t c = 0; c < kHostCauseCount; ++c)
            ms[c] = static_cast<double>(a.ns[c]) / 1e6;
        perStep.push_back(ms);
        result.steps.push_back(a);
    }
    columnMediansAndMeans(perStep, result.medianMs, result.meanMs);
    return result;
}

}  // namespace glueprof
