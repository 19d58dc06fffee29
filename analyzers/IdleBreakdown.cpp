#include "analyzers/IdleBreakdown.h"

#include <optional>

#include "analyzers/HtaWindow.h"

namespace glueprof {

std::vector<StreamIdle> analyzeIdleBreakdown(const TraceModel& trace, TimestampNs threshold) {
    const HtaDeviceWork hta(trace);  // the device work HTA reads (analyzers/HtaWindow.h)
    std::vector<StreamIdle> result;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (!isDeviceWorkLane(lane)) continue;  // the CPU copy engine is a host thread
        StreamIdle s;
        s.lane = lane.name;
        s.stream = lane.threadOrStream;
        const Event* previous = nullptr;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e) || !hta.keeps(e)) continue;
            s.busyNs += e.durationNs();
            if (previous != nullptr && e.startNs > previous->endNs) {
                const TimestampNs gap = e.startNs - previous->endNs;
                ++s.gaps;
                const std::optional<TimestampNs> launch = hta.launchStart(e.correlation);
                if (launch && *launch > previous->endNs) {
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
