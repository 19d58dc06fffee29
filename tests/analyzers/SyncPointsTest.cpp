#include <gtest/gtest.h>

#include "analyzers/NameMatch.h"
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
    b.addEvent(lane, EventKind::kOp, Category::kMath, "aten::nonzero", 60, 70, 1, 0).flags =
        kFlagWouldSync;
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
    b.addEvent(lane, EventKind::kOp, Category::kGlue, "aten::item", 10, 12, 1).flags =
        kFlagWouldSync;
    SyncPointsResult r = analyzeSyncPoints(std::move(b).build());
    ASSERT_EQ(r.points.size(), 1u);
    EXPECT_EQ(r.points[0].range, "");
}

// GPU view: CUPTI sync events on the host lane, inside aten::item inside build_packed_mask (20 ns
// blocked) and inside aten::to directly in the layer (30 ns); one on the stream lane is a device
// wait and is not a host sync; one in the warm-up step is excluded. 2 host syncs, 50 ns blocked in
// step 1.
TEST(SyncPointsTest, GpuHostSyncsAreAttributedToTheirOpAndRangeWithBlockedTime) {
    TraceModelBuilder b;
    std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    std::size_t stream = b.addLane(LaneKind::kCudaStream, "GPU 0 stream 7", 0, 7);
    b.addStep(StepInfo{0, -100, -1, true, 0, 0.0, 0});
    b.addStep(StepInfo{1, 0, 200, false, 1, 0.0, 0});
    b.addEvent(lane, EventKind::kSync, Category::kSync, "cudaStreamSynchronize", -90, -80, 0);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kLayer, 0, 200, 1, 0);
    b.addEvent(lane, EventKind::kRange, Category::kGlue, names::kMaskBuild, 10, 60, 1, 0);
    b.addEvent(lane, EventKind::kOp, Category::kGlue, "aten::item", 20, 50, 1, 0);
    b.addEvent(lane, EventKind::kSync, Category::kSync, "blocking DtoH copy", 25, 45, 1, 0);
    b.addEvent(lane, EventKind::kOp, Category::kMath, "aten::to", 100, 140, 1, 0);
    b.addEvent(lane, EventKind::kSync, Category::kSync, "cudaStreamSynchronize", 105, 135, 1, 0);
    b.addEvent(stream, EventKind::kSync, Category::kSync, "device side", 100, 140, 1, 0);
    const SyncPointsResult r = analyzeSyncPoints(std::move(b).build());
    EXPECT_TRUE(r.hostSyncsCaptured);
    ASSERT_EQ(r.hostSyncs.size(), 2u);
    EXPECT_EQ(r.hostSyncs[0].op, "aten::item");
    EXPECT_EQ(r.hostSyncs[0].range, names::kMaskBuild);
    EXPECT_EQ(r.hostSyncs[0].durationNs, 20);
    EXPECT_EQ(r.hostSyncs[1].op, "aten::to");
    EXPECT_EQ(r.hostSyncs[1].range, names::kLayer);
    EXPECT_EQ(r.hostSyncsPerStep.at(1), 2);
    EXPECT_EQ(r.blockedNsPerStep.at(1), 50);
    EXPECT_DOUBLE_EQ(r.medianHostSyncsPerStep, 2.0);
    EXPECT_DOUBLE_EQ(r.medianSyncBlockedMs, 50e-6);
    EXPECT_TRUE(r.points.empty());  // none flagged would-sync: the CPU view is separate
}

TEST(SyncPointsTest, NoGpuCaptureMeansNoHostSyncNumbers) {
    const SyncPointsResult r = analyzeSyncPoints(layerWithSyncs());
    EXPECT_FALSE(r.hostSyncsCaptured);
    EXPECT_TRUE(r.hostSyncs.empty());
}

// A read inside a Kineto MoE module frame, under a Python frame of its own: its MoE range is the
// module's, without the instance number, so every layer's block is one name; a read outside any
// MoE range has none.
TEST(SyncPointsTest, AReadInsideAMoeModuleIsTaggedWithTheModuleWithoutItsInstance) {
    TraceModelBuilder b;
    const std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{1, 0, 100, false, 1, 0.0, 0});
    b.addEvent(lane, EventKind::kRange, Category::kNone, "nn.Module: SwitchMoE_3", 0, 50, 1).flags =
        kFlagPythonFrame;
    b.addEvent(lane, EventKind::kRange, Category::kNone, "model.py(143): forward", 5, 45, 1).flags =
        kFlagPythonFrame;
    b.addEvent(lane, EventKind::kOp, Category::kMath, "aten::item", 10, 12, 1).flags =
        kFlagWouldSync | kFlagHostRead;
    b.addEvent(lane, EventKind::kOp, Category::kMath, "aten::item", 60, 62, 1).flags =
        kFlagWouldSync | kFlagHostRead;
    const SyncPointsResult r = analyzeSyncPoints(std::move(b).build());
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_EQ(r.points[0].range, "model.py(143): forward");
    EXPECT_EQ(r.points[0].moeRange, "nn.Module: SwitchMoE");
    EXPECT_EQ(r.points[1].moeRange, "");
}

// MoE ranges by whole words: the trainer's routing, HF's and Kineto's module names; not a
// coroutine, a routine or a file named for MoE.
TEST(SyncPointsTest, MoeRangesAreToldByWholeWords) {
    for (const char* moe :
         {"moe_routing", "MoE block: MixtralSparseMoeBlock", "nn.Module: SwitchMoE_1",
          "nn.Module: MixtralExperts", "DeepseekV3MoE", "router"})
        EXPECT_TRUE(isMoeRangeName(moe)) << moe;
    for (const char* other : {"asyncio coroutine", "subroutine", "nn.Module: LlamaDecoderLayer",
                              "hf_mode_train.py(60): <module>", "Optimizer.step#AdamW.step"})
        EXPECT_FALSE(isMoeRangeName(other)) << other;
    EXPECT_EQ(withoutModuleInstance("nn.Module: SwitchMoE_12"), "nn.Module: SwitchMoE");
    EXPECT_EQ(withoutModuleInstance("nn.Module: Block_a"), "nn.Module: Block_a");
}

}  // namespace
}  // namespace glueprof
