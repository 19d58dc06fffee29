#include "analyzers/IdleBreakdown.h"

#include <optional>

#include "analyzers/HtaWindow.h"

namespace glueprof {

namespace {

enum class GapKind { kHostWait, kKernelWait, kOther };

// Walks each device stream's work in HTA's selection: `onStream` per stream with work (its lane and
// busy time), `onGap` per gap with its kind.
template <typename OnStream, typename OnGap>
void walkStreams(const TraceModel& trace, TimestampNs threshold, OnStream onStream, OnGap onGap) {
    const HtaDeviceWork hta(trace);  // the device work HTA reads (analyzers/HtaWindow.h)
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (!isDeviceWorkLane(lane)) continue;  // the CPU copy engine is a host thread
        TimestampNs busy = 0;
        const Event* previous = nullptr;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e) || !hta.keeps(e)) continue;
            busy += e.durationNs();
            if (previous != nullptr && e.startNs > previous->endNs) {
                const Interval gap{previous->endNs, e.startNs};
                const std::optional<TimestampNs> launch = hta.launchStart(e.correlation);
                if (launch && *launch > previous->endNs) {
                    onGap(lane, gap, GapKind::kHostWait);
                } else if (gap.length() < threshold) {
                    onGap(lane, gap, GapKind::kKernelWait);
                } else {
                    onGap(lane, gap, GapKind::kOther);
                }
            }
            if (previous == nullptr || e.endNs > previous->endNs) previous = &e;
        }
        if (previous != nullptr) onStream(lane, busy);
    }
}

}  // namespace

std::vector<StreamIdle> analyzeIdleBreakdown(const TraceModel& trace, TimestampNs threshold) {
    std::vector<StreamIdle> result;
    StreamIdle s;  // the stream being walked: gaps come before its onStream
    walkStreams(
        trace, threshold,
        [&](const Lane& lane, TimestampNs busy) {
            s.lane = lane.name;
            s.stream = lane.threadOrStream;
            s.busyNs = busy;
            result.push_back(s);
            s = StreamIdle{};
        },
        [&](const Lane&, const Interval& gap, GapKind kind) {
            ++s.gaps;
            (kind == GapKind::kHostWait     ? s.hostWaitNs
             : kind == GapKind::kKernelWait ? s.kernelWaitNs
                                            : s.otherNs) += gap.length();
        });
    return result;
}

IdleGaps idleGaps(const TraceModel& trace, TimestampNs threshold) {
    IdleGaps gaps;
    walkStreams(
        trace, threshold, [](const Lane&, TimestampNs) {},
        [&](const Lane&, const Interval& gap, GapKind kind) {
            (kind == GapKind::kHostWait     ? gaps.hostWait
             : kind == GapKind::kKernelWait ? gaps.kernelWait
                                            : gaps.other)
                .push_back(gap);
        });
    return gaps;
}

}  // namespace glueprof
