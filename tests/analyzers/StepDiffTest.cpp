// The step diff on two hand-built runs whose answer is worked out in the comments.
#include <gtest/gtest.h>

#include "analyzers/StepDiff.h"

namespace glueprof {
namespace {

// Run A: warm-up step 0 [0, 100), measured step 1 [100, 300): build_packed_mask four times (10 ns
// each), aten::mm twice (50 ns each). Run B: measured step 1 [1000, 1150): build_packed_mask once
// (10 ns), aten::mm twice (50 ns each), a copy "reload" (30 ns) on another lane. Events of the
// warm-up step do not count.
TraceModel runA() {
    TraceModelBuilder b;
    const std::size_t main = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{0, 0, 100, true, 0, 0.0, 0});
    b.addStep(StepInfo{1, 100, 300, false, 1, 0.0, 0});
    b.addEvent(main, EventKind::kRange, Category::kGlue, "build_packed_mask", 10, 90,
               0);  // warm-up
    for (int i = 0; i < 4; ++i) {
        b.addEvent(main, EventKind::kRange, Category::kGlue, "build_packed_mask", 100 + 20 * i,
                   110 + 20 * i, 1);
    }
    b.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 180, 230, 1);
    b.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 240, 290, 1);
    return std::move(b).build();
}

TraceModel runB() {
    TraceModelBuilder b;
    const std::size_t main = b.addLane(LaneKind::kHostThread, "main");
    const std::size_t copy = b.addLane(LaneKind::kCopyStream, "copy engine");
    b.addStep(StepInfo{0, 900, 1000, true, 0, 0.0, 0});
    b.addStep(StepInfo{1, 1000, 1150, false, 1, 0.0, 0});
    b.addEvent(main, EventKind::kRange, Category::kGlue, "build_packed_mask", 1000, 1010, 1);
    b.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 1020, 1070, 1);
    b.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 1080, 1130, 1);
    b.addEvent(copy, EventKind::kMemcpy, Category::kCopy, "reload", 1100, 1130, 1);
    b.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 1150, 1200, 2);  // after the step
    return std::move(b).build();
}

TEST(StepDiffTest, ComparesTheFirstMeasuredStepNameByName) {
    const StepDiff d = diffSteps(runA(), runB(), -1);
    EXPECT_EQ(d.stepA, 1);
    EXPECT_EQ(d.stepB, 1);
    EXPECT_EQ(d.lengthA, 200);
    EXPECT_EQ(d.lengthB, 150);
    ASSERT_EQ(d.names.size(), 3u);
    // |delta|: mask 40 - 10 = 30, reload 30, mm 0. Ties go by name.
    EXPECT_EQ(d.names[0].name, "build_packed_mask");
    EXPECT_EQ(d.names[0].countA, 4);
    EXPECT_EQ(d.names[0].countB, 1);
    EXPECT_EQ(d.names[0].nsA, 40);
    EXPECT_EQ(d.names[0].nsB, 10);
    EXPECT_DOUBLE_EQ(d.names[0].deltaMs(), -30e-6);
    EXPECT_EQ(d.names[1].name, "reload");
    EXPECT_EQ(d.names[1].countA, 0);
    EXPECT_EQ(d.names[1].countB, 1);
    EXPECT_EQ(d.names[1].kind, EventKind::kMemcpy);
    EXPECT_EQ(d.names[2].name, "aten::mm");
    EXPECT_EQ(d.names[2].countA, 2);
    EXPECT_EQ(d.names[2].countB, 2);
}

TEST(StepDiffTest, AnExplicitStepAndAMissingOne) {
    const StepDiff warm = diffSteps(runA(), runB(), 0);
    EXPECT_EQ(warm.stepA, 0);
    ASSERT_EQ(warm.names.size(), 1u);  // A's warm-up mask; B's warm-up step is empty
    EXPECT_EQ(warm.names[0].countA, 1);
    EXPECT_EQ(warm.names[0].countB, 0);
    const StepDiff missing = diffSteps(runA(), runB(), 7);
    EXPECT_EQ(missing.stepA, -1);
    EXPECT_EQ(missing.stepB, -1);
    EXPECT_TRUE(missing.names.empty());
}

TEST(StepDiffTest, ACountThatChangedComesBeforeALargerTimeChange) {
    // aten::mm takes 900 ns longer in B with the same count; aten::nonzero runs once more (1 ns).
    auto run = [](TimestampNs mm, int nonzeros) {
        TraceModelBuilder b;
        const std::size_t main = b.addLane(LaneKind::kHostThread, "main");
        b.addStep(StepInfo{0, 0, 10000, false, 1, 0.0, 0});
        b.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 0, mm, 0);
        for (int i = 0; i < nonzeros; ++i) {
            b.addEvent(main, EventKind::kOp, Category::kGlue, "aten::nonzero", 5000 + i * 10,
                       5001 + i * 10, 0);
        }
        return std::move(b).build();
    };
    const StepDiff d = diffSteps(run(100, 1), run(1000, 2), -1);
    ASSERT_EQ(d.names.size(), 2u);
    EXPECT_EQ(d.names[0].name, "aten::nonzero");
    EXPECT_TRUE(d.names[0].countChanged());
    EXPECT_EQ(d.names[1].name, "aten::mm");
}

}  // namespace
}  // namespace glueprof
