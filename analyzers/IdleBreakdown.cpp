#include "analyzers/IdleBreakdown.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace glueprof {

namespace {
bool isDeviceWork(const Event& e) {
    return e.kind == EventKind::kKernel || e.kind == EventKind::kMemcpy ||
           e.kind == EventKind::kMemset;
}
}  // namespace

std::vector<StreamIdle> analyzeIdleBreakdown(const TraceModel& trace, TimestampNs threshold) {
    std::unordered_map<std::int64_t, TimestampNs> launchStart;  // correlation -> runtime start
    launchStart.reserve(trace.eventCount() / 4);
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind == EventKind::kRuntime && e.correlation != 0)
                launchStart[e.correlation] = e.startNs;
        }
    }
    // HTA's step window (hta/common/trace.py, _filter_irrelevant_gpu_kernels, with its last step
    // kept): with two or more steps, only device work launched by a host event that starts by the
    // end of the last step; with one step or none, all of it.
    std::optional<TimestampNs> launchedBy;
    if (trace.steps().size() >= 2) {
        TimestampNs lastEnd = trace.steps().front().endNs;
        for (const StepInfo& step : trace.steps()) lastEnd = std::max(lastEnd, step.endNs);
        launchedBy = lastEnd;
    }
    const auto kept = [&](const Event& e) {
        if (!launchedBy) return true;
        const auto launch = launchStart.find(e.correlation);
        return e.correlation != 0 && launch != launchStart.end() && launch->second <= *launchedBy;
    };
    std::vector<StreamIdle> result;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (lane.kind != LaneKind::kCudaStream && lane.kind != LaneKind::kCopyStream) continue;
        if (lane.device < 0) continue;  // the CPU copy engine is a host thread
        StreamIdle s;
        s.lane = lane.name;
        s.stream = lane.threadOrStream;
        const Event* previous = nullptr;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e) || !kept(e)) continue;
            s.busyNs += e.durationNs();
            if (previous != nullptr && e.startNs > previous->endNs) {
                const TimestampNs gap = e.startNs - previous->endNs;
                ++s.gaps;
                auto launch = launchStart.find(e.correlation);
                if (launch != launchStart.end() && launch->second > previous->endNs) {
                    s.hostWaitNs += gap;
                } else if (gap < threshold) {
                    s.kernelWaitNs += gap;
                } else {
                    s.otherNs += gap;
                }
            }
            if (previous == nullptr || e.endNs > previous->endNs) previous = &e;
        }
        if (previous != nullptr) result.push_back(s);
    }
    return result;
}

}  // namespace glueprof
