// The one rule for showing two runs' sync points side by side (app/report/SyncComparison.h), on
// sync points made by hand.
#include <gtest/gtest.h>

#include <string>

#include "app/report/SyncComparison.h"

namespace glueprof {
namespace {

SyncGroup group(const std::string& key, std::int64_t count, double totalMs = 0.0) {
    return SyncGroup{key, count, totalMs};
}

// Baseline: 2 steps with sync points, aten::item 6 times and aten::nonzero twice; optimized: 1
// step, aten::nonzero twice and aten::masked_select once. Per step: item 3 -> 0, nonzero 1 -> 2,
// masked_select 0 -> 1, in the baseline's order, then the optimized run's new op.
TEST(SyncComparisonTest, EveryOpOfEitherRunPerMeasuredStepInTheBaselinesOrder) {
    SyncPointsResult baseline;
    baseline.byOp = {group("aten::item", 6), group("aten::nonzero", 2)};
    baseline.perStep = {{1, 4}, {2, 4}};
    SyncPointsResult optimized;
    optimized.byOp = {group("aten::nonzero", 2), group("aten::masked_select", 1)};
    optimized.perStep = {{1, 3}};
    const SyncComparison c = compareSyncPoints(baseline, optimized);
    ASSERT_EQ(c.opsPerStep.size(), 3u);
    EXPECT_EQ(c.opsPerStep[0].op, "aten::item");
    EXPECT_DOUBLE_EQ(c.opsPerStep[0].baseline, 3.0);
    EXPECT_DOUBLE_EQ(c.opsPerStep[0].optimized, 0.0);
    EXPECT_EQ(c.opsPerStep[1].op, "aten::nonzero");
    EXPECT_DOUBLE_EQ(c.opsPerStep[1].baseline, 1.0);
    EXPECT_DOUBLE_EQ(c.opsPerStep[1].optimized, 2.0);
    EXPECT_EQ(c.opsPerStep[2].op, "aten::masked_select");
    EXPECT_DOUBLE_EQ(c.opsPerStep[2].baseline, 0.0);
    EXPECT_DOUBLE_EQ(c.opsPerStep[2].optimized, 1.0);
    EXPECT_FALSE(c.hostSyncsCaptured);
}

TEST(SyncComparisonTest, ARunWithTheGpusHostSyncsListsThemInsteadOfTheOpsThatWouldSync) {
    SyncPointsResult cpu;
    cpu.byOp = {group("aten::item", 2)};
    SyncPointsResult gpu = cpu;
    gpu.hostSyncsCaptured = true;
    gpu.hostSyncsByOp = {group("aten::item", 2, 0.5), group("(no op)", 1, 0.1)};
    const SyncComparison c = compareSyncPoints(cpu, gpu);
    EXPECT_TRUE(c.hostSyncsCaptured);
    EXPECT_EQ(&SyncComparison::listedByOp(*c.baseline), &cpu.byOp);
    EXPECT_EQ(&SyncComparison::listedByOp(*c.optimized), &gpu.hostSyncsByOp);
}

}  // namespace
}  // namespace glueprof
