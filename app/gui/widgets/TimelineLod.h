#pragma once
// Timeline level of detail, independent of ImGui so it can be tested and benchmarked. Built once
// per trace: each lane's events split by nesting depth into sorted, disjoint start/end arrays. Per
// frame, for a visible time range and a width in pixels, visibleItems() returns what to draw:
// events at least `minPixels` wide as themselves, runs of narrower ones folded into one box with a
// count. It finds the first visible event by binary search and, inside a folded box, jumps to the
// next pixel by binary search too, so a frame costs about (pixels x depth x log n), not the number
// of events.
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof::gui {

struct LodLevel {
    std::vector<TimestampNs> start;
    std::vector<TimestampNs> end;
    std::vector<std::uint32_t> event;  // index into the lane's events
};

struct LodLane {
    std::size_t laneIndex = 0;
    std::string group;             // laneGroup() of the lane: the header it is drawn under
    std::vector<LodLevel> levels;  // by depth, 0 = outermost
};

struct TimelineIndex {
    std::vector<LodLane> lanes;
    TimestampNs first = 0;
    TimestampNs last = 0;
};

// Lanes are grouped by where they run, in this order: "host" (threads and the CPU copy worker),
// "GPU N" (its CUDA and copy streams), "pipeline workers", "simulated workers".
std::string laneGroup(const Lane& lane);

// Lanes with events, ordered by group (then device, then their order in the trace).
TimelineIndex buildTimelineIndex(const TraceModel& trace);

struct DrawItem {
    std::uint32_t lane = 0;  // index into TimelineIndex::lanes
    std::uint16_t depth = 0;
    float x0 = 0.0F;  // pixels from the left edge
    float x1 = 0.0F;
    std::int64_t event = -1;  // the event's index on its lane; -1 for a folded box
    std::uint32_t count = 1;  // events in the box
};

// Items of [t0, t1) over `widthPixels`; appended to `out` (cleared first).
void visibleItems(const TimelineIndex& index, TimestampNs t0, TimestampNs t1, float widthPixels,
                  float minPixels, std::vector<DrawItem>& out);

}  // namespace glueprof::gui
