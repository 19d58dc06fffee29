#include <gtest/gtest.h>

#include "analyzers/StepBreakdown.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {
namespace {

constexpr TimestampNs kMs = 1000000;

// Step 0 (warm-up): ignored. Step 1: wall 0..100 ms, forward 0..30, backward 30..80, optimizer
// 80..95. Step 2: wall 100..180, two forwards 100..120 and 125..135 (30 in all), backward 135..170,
// optimizer 170..175. Medians over steps 1 and 2: wall (100+80)/2 = 90, forward 30,
// backward (50+35)/2 = 42.5, optimizer (15+5)/2 = 10.
TraceModel twoMeasuredSteps() {
    TraceModelBuilder b;
    std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{0, -50 * kMs, -10 * kMs, true, 0, 3.0, 0});
    b.addStep(StepInfo{1, 0, 100 * kMs, false, 1, 2.0, 0});
    b.addStep(StepInfo{2, 100 * kMs, 180 * kMs, false, 1, 1.5, 0});
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kForward, -50 * kMs, -20 * kMs, 0);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kForward, 0, 30 * kMs, 1);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kBackward, 30 * kMs, 80 * kMs, 1);
    b.addEvent(lane, EventKind::kRange, Category::kOptimizer, names::kOptimizer, 80 * kMs, 95 * kMs,
               1);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kForward, 100 * kMs, 120 * kMs, 2);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kForward, 125 * kMs, 135 * kMs, 2);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kBackward, 135 * kMs, 170 * kMs,
               2);
    b.addEvent(lane, EventKind::kRange, Category::kOptimizer, names::kOptimizer, 170 * kMs,
               175 * kMs, 2);
    return std::move(b).build();
}

TEST(StepBreakdownTest, SumsPhaseRangesPerStepAndExcludesWarmup) {
    StepBreakdownResult r = analyzeStepBreakdown(twoMeasuredSteps());
    ASSERT_EQ(r.measured.size(), 2u);
    ASSERT_EQ(r.warmup.size(), 1u);
    EXPECT_DOUBLE_EQ(r.measured[0].wallMs, 100.0);
    EXPECT_DOUBLE_EQ(r.measured[0].forwardMs, 30.0);
    EXPECT_DOUBLE_EQ(r.measured[0].backwardMs, 50.0);
    EXPECT_DOUBLE_EQ(r.measured[0].optimizerMs, 15.0);
    EXPECT_DOUBLE_EQ(r.measured[1].forwardMs, 30.0);  // two micro-batch forwards
    EXPECT_DOUBLE_EQ(r.measured[1].backwardMs, 35.0);
}

TEST(StepBreakdownTest, MediansAreOverMeasuredStepsOnly) {
    StepBreakdownResult r = analyzeStepBreakdown(twoMeasuredSteps());
    EXPECT_DOUBLE_EQ(r.medianWallMs, 90.0);
    EXPECT_DOUBLE_EQ(r.medianForwardMs, 30.0);
    EXPECT_DOUBLE_EQ(r.medianBackwardMs, 42.5);
    EXPECT_DOUBLE_EQ(r.medianOptimizerMs, 10.0);
}

TEST(StepBreakdownTest, TraceWithoutStepsGivesEmptyResult) {
    TraceModelBuilder b;
    b.addLane(LaneKind::kHostThread, "main");
    StepBreakdownResult r = analyzeStepBreakdown(std::move(b).build());
    EXPECT_TRUE(r.measured.empty());
    EXPECT_DOUBLE_EQ(r.medianWallMs, 0.0);
}

}  // namespace
}  // namespace glueprof
