#include "app/gui/widgets/TimelineLod.h"

#include <algorithm>
#include <limits>

namespace glueprof::gui {

namespace {

int groupRank(const Lane& lane) {
    switch (lane.kind) {
        case LaneKind::kHostThread:
            return 0;
        case LaneKind::kCopyStream:
            return lane.device < 0 ? 0 : 1;
        case LaneKind::kCudaStream:
            return 1;
        case LaneKind::kPipelineWorker:
            return 2;
        case LaneKind::kSimulatedWorker:
            return 3;
    }
    return 4;
}

}  // namespace

std::string laneGroup(const Lane& lane) {
    switch (groupRank(lane)) {
        case 0:
            return "host";
        case 1:
            return "GPU " + std::to_string(lane.device);
        case 2:
            return "pipeline workers";
        case 3:
            return "simulated workers";
        default:
            return "other";
    }
}

TimelineIndex buildTimelineIndex(const TraceModel& trace) {
    TimelineIndex index;
    index.first = std::numeric_limits<TimestampNs>::max();
    index.last = std::numeric_limits<TimestampNs>::min();
    for (std::size_t laneIndex = 0; laneIndex < trace.lanes().size(); ++laneIndex) {
        const std::vector<Event>& events = trace.eventsOnLane(laneIndex);
        if (events.empty()) continue;
        LodLane lane;
        lane.laneIndex = laneIndex;
        lane.group = laneGroup(trace.lanes()[laneIndex]);
        std::vector<TimestampNs> openEnds;  // the ends of the enclosing events
        for (std::size_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            while (!openEnds.empty() && openEnds.back() <= e.startNs) openEnds.pop_back();
            const std::size_t depth = openEnds.size();
            if (lane.levels.size() <= depth) lane.levels.resize(depth + 1);
            LodLevel& level = lane.levels[depth];
            // A partial overlap at one depth (not nested, not disjoint) is clipped to stay
            // disjoint.
            const TimestampNs start =
                level.end.empty() ? e.startNs : std::max(e.startNs, level.end.back());
            const TimestampNs end = std::max(start, e.endNs);
            level.start.push_back(start);
            level.end.push_back(end);
            level.event.push_back(static_cast<std::uint32_t>(i));
            openEnds.push_back(e.endNs);
            index.first = std::min(index.first, e.startNs);
            index.last = std::max(index.last, e.endNs);
        }
        index.lanes.push_back(std::move(lane));
    }
    if (index.lanes.empty()) index.first = index.last = 0;
    std::stable_sort(
        index.lanes.begin(), index.lanes.end(), [&](const LodLane& a, const LodLane& b) {
            const Lane& la = trace.lanes()[a.laneIndex];
            const Lane& lb = trace.lanes()[b.laneIndex];
            const int ra = groupRank(la);
            const int rb = groupRank(lb);
            if (ra != rb) return ra < rb;
            return ra == 1 && la.device < lb.device;  // GPUs by number; otherwise the trace's order
        });
    return index;
}

void visibleItems(const TimelineIndex& index, TimestampNs t0, TimestampNs t1, float widthPixels,
                  float minPixels, std::vector<DrawItem>& out) {
    out.clear();
    if (t1 <= t0 || widthPixels <= 0) return;
    const double nsPerPixel = static_cast<double>(t1 - t0) / widthPixels;
    auto px = [&](TimestampNs t) {
        return static_cast<float>(static_cast<double>(t - t0) / nsPerPixel);
    };
    for (std::uint32_t l = 0; l < index.lanes.size(); ++l) {
        const LodLane& lane = index.lanes[l];
        for (std::uint16_t depth = 0; depth < lane.levels.size(); ++depth) {
            const LodLevel& level = lane.levels[depth];
            const std::size_t n = level.start.size();
            // First event ending after t0: ends are sorted too at one depth (disjoint, sorted
            // starts).
            std::size_t i = static_cast<std::size_t>(
                std::upper_bound(level.end.begin(), level.end.end(), t0) - level.end.begin());
            while (i < n && level.start[i] < t1) {
                const float x0 = px(level.start[i]);
                const float x1 = px(level.end[i]);
                if (x1 - x0 >= minPixels) {
                    out.push_back(
                        DrawItem{l, depth, x0, x1, static_cast<std::int64_t>(level.event[i]), 1});
                    ++i;
                    continue;
                }
                // Fold everything that starts within the next `minPixels` into one box.
                const TimestampNs until =
                    t0 + static_cast<TimestampNs>((std::max(x0, 0.0F) + minPixels) * nsPerPixel);
                std::size_t j = static_cast<std::size_t>(
                    std::lower_bound(level.start.begin() + static_cast<std::ptrdiff_t>(i + 1),
                                     level.start.end(), until) -
                    level.start.begin());
                j = std::max(j, i + 1);
                // Only the last of them can be wide (they are disjoint): leave it to draw on its
                // own.
                if (j - 1 > i && px(level.end[j - 1]) - px(level.start[j - 1]) >= minPixels) --j;
                out.push_back(DrawItem{l, depth, x0, std::max(px(level.end[j - 1]), x0 + 1.0F),
                                       j - i == 1 ? static_cast<std::int64_t>(level.event[i]) : -1,
                                       static_cast<std::uint32_t>(j - i)});
                i = j;
            }
        }
    }
}

}  // namespace glueprof::gui
