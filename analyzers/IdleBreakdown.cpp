#include "analyzers/IdleBreakdown.h"

#include <optional>
#include <unordered_map>

#include "analyzers/HtaWindow.h"

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
    // The device work HTA reads: what a host event it keeps launched (analyzers/HtaWindow.h).
    const std::optional<TimestampNs> launchedBy = htaHostEventCutoff(trace);
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
