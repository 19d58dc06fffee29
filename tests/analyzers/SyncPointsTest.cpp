#include <gtest/gtest.h>

#include "analyzers/SyncPoints.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {
namespace {

// Step 1, layer 0 = [0, 100]; inside it build_packed_mask = [10, 50] containing aten::item
// [20, 25] (would-sync, host read); aten::nonzero [60, 70] directly in the layer (would-sync, not a
// host read); aten::mm [70, 80] (not a sync). Warm-up step 0 has one aten::item: excluded.
// Expected: 2 sync points in step 1, 1 host read; by op item 1 / nonzero 1; by range
// build_packed_mask 1 / layer 1; by layer "layer 0" 2.
TraceModel layerWithSyncs() {
    TraceModelBuilder b;
    std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{0, -100, -1, true, 0, 0.0, 0});
    b.addStep(StepInfo{1, 0, 100, false, 1, 0.0, 0});
    b.addEvent(lane, EventKind::kOp, Category::kGlue, "aten::item", -90, -80, 0).flags =
        kFlagWouldSync | kFlagHostRead;
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kLayer, 0, 100, 1, 0);
    b.addEvent(lane, EventKind::kRange, Category::kGlue, names::kMaskBuild, 10, 50, 1, 0);
    b.addEvent(lane, EventKind::kOp, Category::kGlue, "aten::item", 20, 25, 1, 0).flags =
        kFlagWouldSync | kFlagHostRead;
    b.addEvent(lane, EventKind::kOp, Category::kMath, "aten::nonzero", 60, 70, 1, 0).flags = kFlagWouldSync;
    b.addEvent(lane, EventKind::kOp, Category::kMath, "aten::mm", 70, 80, 1, 0);
    return std::move(b).build();
}

TEST(SyncPointsTest, CountsWouldSyncOpsOfMeasuredStepsWithTheirOpAndRange) {
    SyncPointsResult r = analyzeSyncPoints(layerWithSyncs());
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_EQ(r.points[0].op, "aten::item");
    EXPECT_EQ(r.points[0].range, names::kMaskBuild);
    EXPECT_TRUE(r.points[0].hostRead);
    EXPECT_EQ(r.points[1].op, "aten::nonzero");
    EXPECT_EQ(r.points[1].range, names::kLayer);
    EXPECT_FALSE(r.points[1].hostRead);
    EXPECT_EQ(r.perStep.at(1), 2);
    EXPECT_EQ(r.hostReadsPerStep.at(1), 1);
    EXPECT_EQ(r.perStep.count(0), 0u);
    EXPECT_DOUBLE_EQ(r.medianPerStep, 2.0);
}

TEST(SyncPointsTest, GroupsByOpLayerAndRange) {
    SyncPointsResult r = analyzeSyncPoints(layerWithSyncs());
    ASSERT_EQ(r.byOp.size(), 2u);
    EXPECT_EQ(r.byOp[0].count, 1);
    ASSERT_EQ(r.byLayer.size(), 1u);
    EXPECT_EQ(r.byLayer[0].key, "layer 0");
    EXPECT_EQ(r.byLayer[0].count, 2);
    ASSERT_EQ(r.byRange.size(), 2u);
    EXPECT_DOUBLE_EQ(r.byOp[0].totalMs + r.byOp[1].totalMs, (5 + 10) / 1e6);
}

TEST(SyncPointsTest, RangeThatEndedBeforeTheOpIsNotItsRange) {
    TraceModelBuilder b;
    std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{1, 0, 100, false, 1, 0.0, 0});
    b.addEvent(lane, EventKind::kRange, Category::kGlue, "early", 0, 10, 1);
    b.addEvent(lane, EventKind::kOp, Category::kGlue, "aten::item", 10, 12, 1).flags = kFlagWouldSync;
    SyncPointsResult r = analyzeSyncPoints(std::move(b).build());
    ASSERT_EQ(r.points.size(), 1u);
    EXPECT_EQ(r.points[0].range, "");
}

}  // namespace
}  // namespace glueprof
