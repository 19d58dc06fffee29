// Timeline level of detail: what is wide is drawn as itself, what is narrow folds into counted
// boxes, nothing visible is lost, and zooming in shows the single events again.
#include <gtest/gtest.h>

#include "app/gui/widgets/TimelineLod.h"

namespace glueprof::gui {
namespace {

// One lane: a parent [0, 1000) (depth 0) holding 100 children of 5 ns every 10 ns (depth 1).
TraceModel parentWithManySmallChildren() {
    TraceModelBuilder b;
    std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    b.addEvent(lane, EventKind::kRange, Category::kPhase, "step", 0, 1000);
    for (int i = 0; i < 100; ++i)
        b.addEvent(lane, EventKind::kOp, Category::kMath, "op", 10 * i, 10 * i + 5);
    return std::move(b).build();
}

TEST(TimelineLodTest, NarrowEventsFoldIntoCountedBoxesAndZoomingInUnfoldsThem) {
    const TraceModel trace = parentWithManySmallChildren();
    const TimelineIndex index = buildTimelineIndex(trace);
    ASSERT_EQ(index.lanes.size(), 1u);
    ASSERT_EQ(index.lanes[0].levels.size(), 2u);
    EXPECT_EQ(index.lanes[0].levels[1].start.size(), 100u);

    // 1000 ns over 100 px: a child is 0.5 px, under the 3 px minimum -> boxes of about 3 px each.
    std::vector<DrawItem> items;
    visibleItems(index, 0, 1000, 100.0F, 3.0F, items);
    std::uint32_t children = 0;
    std::size_t boxes = 0;
    for (const DrawItem& item : items) {
        if (item.depth == 0) {
            EXPECT_EQ(item.event, 0);  // the parent, as itself
            continue;
        }
        children += item.count;
        if (item.event < 0) ++boxes;
    }
    EXPECT_EQ(children, 100u);  // every child is in exactly one item
    EXPECT_GE(boxes, 25u);      // folded, a few per box
    EXPECT_LE(items.size(), 40u);

    // Zoomed to [100, 200) over 1000 px: each child is 50 px wide and drawn as itself.
    visibleItems(index, 100, 200, 1000.0F, 3.0F, items);
    std::size_t single = 0;
    for (const DrawItem& item : items) {
        if (item.depth == 1) {
            EXPECT_EQ(item.count, 1u);
            EXPECT_GE(item.event, 0);
            ++single;
        }
    }
    EXPECT_EQ(single, 10u);  // the children starting at 100, 110, ..., 190
}

// Lanes are drawn grouped by where they run: host first, then GPUs by number, then workers; a lane
// with no events is left out.
TEST(TimelineLodTest, LanesAreGroupedHostThenGpusThenWorkers) {
    TraceModelBuilder b;
    const std::size_t worker = b.addLane(LaneKind::kPipelineWorker, "worker 0", 0, 0);
    const std::size_t gpu1 = b.addLane(LaneKind::kCudaStream, "stream 7", 1, 7);
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", -1, 1);
    const std::size_t gpu0copy = b.addLane(LaneKind::kCopyStream, "copy stream", 0, 9);
    const std::size_t cpuCopy = b.addLane(LaneKind::kCopyStream, "copy engine", -1, 2);
    b.addLane(LaneKind::kHostThread, "idle thread", -1, 3);
    for (std::size_t lane : {worker, gpu1, host, gpu0copy, cpuCopy}) {
        b.addEvent(lane, EventKind::kRange, Category::kPhase, "x", 0, 10);
    }
    const TraceModel trace = std::move(b).build();
    const TimelineIndex index = buildTimelineIndex(trace);
    std::vector<std::string> order;
    for (const LodLane& lane : index.lanes)
        order.push_back(lane.group + "/" + trace.lanes()[lane.laneIndex].name);
    EXPECT_EQ(order, (std::vector<std::string>{"host/main", "host/copy engine", "GPU 0/copy stream",
                                               "GPU 1/stream 7", "pipeline workers/worker 0"}));
}

}  // namespace
}  // namespace glueprof::gui
