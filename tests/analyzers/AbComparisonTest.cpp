#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "analyzers/AbComparison.h"
#include "analyzers/Statistics.h"

namespace glueprof {
namespace {

// Three measured steps (plus one warm-up) of `stepMs` each, `maskBuilds` per step.
TraceModel runWith(RunId id, double stepMs, std::int64_t maskBuilds, double loss) {
    RunSummary summary;
    summary.id = id;
    TraceModelBuilder b(summary);
    b.addLane(LaneKind::kHostThread, "main");
    TimestampNs t = 0;
    for (std::int32_t step = 0; step < 4; ++step) {
        auto duration = static_cast<TimestampNs>(stepMs * 1e6);
        b.addStep(StepInfo{step, t, t + duration, step == 0, step == 0 ? 0 : 1, loss + step, 0});
        b.addCounter(step, "mask_builds", step == 0 ? 99 : maskBuilds);
        t += duration;
    }
    return std::move(b).build();
}

TEST(StatisticsTest, MedianOfEvenCountAveragesTheMiddleTwo) {
    EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
    EXPECT_DOUBLE_EQ(median({5.0}), 5.0);
    EXPECT_DOUBLE_EQ(median({}), 0.0);
}

TEST(StatisticsTest, BootstrapOfConstantSamplesIsAPointAndIsDeterministic) {
    RatioInterval ci = bootstrapMedianRatio({10, 10, 10}, {5, 5, 5});
    EXPECT_DOUBLE_EQ(ci.low, 2.0);
    EXPECT_DOUBLE_EQ(ci.high, 2.0);
    RatioInterval a = bootstrapMedianRatio({10, 11, 12, 13}, {5, 6, 7, 8});
    RatioInterval b = bootstrapMedianRatio({10, 11, 12, 13}, {5, 6, 7, 8});
    EXPECT_EQ(a.low, b.low);
    EXPECT_EQ(a.high, b.high);
    EXPECT_LE(a.low, 12.0 / 6.5);
    EXPECT_GE(a.high, 12.0 / 6.5);
}

TEST(AbComparisonTest, HalvedStepTimeIsATwofoldSpeedupAndAFasterVerdict) {
    AbComparison c = compareRuns("packed_cache", TimingMetric::kStep, runWith(1, 10.0, 4, 2.0),
                                 runWith(2, 5.0, 1, 2.0));
    const MetricComparison* step = c.metric(TimingMetric::kStep);
    ASSERT_NE(step, nullptr);
    EXPECT_DOUBLE_EQ(step->baseline, 10.0);
    EXPECT_DOUBLE_EQ(step->optimized, 5.0);
    EXPECT_DOUBLE_EQ(step->speedup, 2.0);
    EXPECT_DOUBLE_EQ(step->speedupLow, 2.0);
    EXPECT_EQ(step->baselineSamples, 3u);  // the warm-up step is excluded
    EXPECT_EQ(c.verdict(), Verdict::kFaster);
    EXPECT_EQ(c.baselineRun, 1);
    EXPECT_EQ(c.optimizedRun, 2);
}

TEST(AbComparisonTest, CountersAreComparedPerMeasuredStep) {
    AbComparison c = compareRuns("packed_cache", TimingMetric::kStep, runWith(1, 10.0, 4, 2.0),
                                 runWith(2, 5.0, 1, 2.0));
    const CounterComparison* masks = c.counter("mask_builds_per_step");
    ASSERT_NE(masks, nullptr);
    EXPECT_EQ(masks->baseline, 4.0);  // 99 in the warm-up step is not counted
    EXPECT_EQ(masks->optimized, 1.0);
    EXPECT_TRUE(masks->baselineConstant);
}

TEST(AbComparisonTest, LossEqualityIsBitForBit) {
    EXPECT_TRUE(
        compareRuns("t", TimingMetric::kStep, runWith(1, 10, 1, 2.0), runWith(2, 10, 1, 2.0))
            .lossEqual);
    double nudged = std::nextafter(2.0, 3.0);
    EXPECT_FALSE(
        compareRuns("t", TimingMetric::kStep, runWith(1, 10, 1, 2.0), runWith(2, 10, 1, nudged))
            .lossEqual);
}

TEST(AbComparisonTest, SlowerAndUnchangedVerdicts) {
    EXPECT_EQ(
        compareRuns("t", TimingMetric::kStep, runWith(1, 5, 1, 0), runWith(2, 10, 1, 0)).verdict(),
        Verdict::kSlower);
    EXPECT_EQ(
        compareRuns("t", TimingMetric::kStep, runWith(1, 5, 1, 0), runWith(2, 5, 1, 0)).verdict(),
        Verdict::kNoSignificantChange);
}

}  // namespace
}  // namespace glueprof
