#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "analyzers/RegressionGate.h"
#include "profiler/core/Error.h"

namespace glueprof {
namespace {

// One toggle's A/B as the gate sees it: mask builds 8 -> 1 per step, forward time 1.20x with the
// interval [low, 1.40] over `blocks` blocks, losses bit-identical.
AbComparison measured(double low, std::size_t blocks = 3) {
    AbComparison c;
    c.toggle = "packed_cache";
    c.primaryMetric = TimingMetric::kForward;
    c.baselineRun = 1;
    c.optimizedRun = 2;
    MetricComparison forward;
    forward.metric = TimingMetric::kForward;
    forward.speedup = 1.2;
    forward.speedupLow = low;
    forward.speedupHigh = 1.4;
    forward.blocks = blocks;
    forward.pairedBlocks = true;
    forward.baselineSamples = forward.optimizedSamples = 3 * blocks;
    c.metrics.push_back(forward);
    c.counters.push_back(CounterComparison{"mask_builds_per_step", 8.0, 1.0, true, true});
    c.lossEqual = true;
    return c;
}

GateBaseline expecting(double floor) {
    GateBaseline b;
    b.preset = "tiny";
    ToggleExpectation e;
    e.counters["mask_builds_per_step"] = CounterExpectation{8.0, 1.0};
    e.minSpeedup["forward_ms"] = floor;
    b.toggles["packed_cache"] = e;
    return b;
}

GateCheck named(const std::vector<GateCheck>& checks, const std::string& check) {
    for (const GateCheck& c : checks) {
        if (c.check == check) return c;
    }
    static const GateCheck kNone{"", "absent", "", "", false};
    return kNone;
}

TEST(RegressionGateTest, APassingToggleGivesOneCheckPerExpectationInOrder) {
    const std::vector<GateCheck> checks =
        evaluateGate(expecting(1.05), {{"packed_cache", measured(1.10)}});
    ASSERT_EQ(checks.size(), 4u);  // comparison, one counter, one speedup, loss
    EXPECT_EQ(checks[0].check, "comparison");
    EXPECT_EQ(checks[0].measured, "runs 1 vs 2");
    EXPECT_EQ(checks[1].check, "counter mask_builds_per_step");
    EXPECT_EQ(checks[1].expected, "8 -> 1");
    EXPECT_EQ(checks[2].check, "speedup forward_ms");
    EXPECT_EQ(checks[2].expected, "95% CI low >= 1.05x");
    EXPECT_EQ(checks[3].check, "loss");
    EXPECT_TRUE(allPassed(checks));
}

// The floor compares with the interval's low end, inclusive: 1.05 passes a 1.05 floor, 1.04 fails.
TEST(RegressionGateTest, TheSpeedupFloorIsOnTheIntervalsLowEndInclusive) {
    EXPECT_TRUE(named(evaluateGate(expecting(1.05), {{"packed_cache", measured(1.05)}}),
                      "speedup forward_ms")
                    .passed);
    EXPECT_FALSE(named(evaluateGate(expecting(1.05), {{"packed_cache", measured(1.04)}}),
                       "speedup forward_ms")
                     .passed);
}

// Without an interval (fewer blocks than a verdict needs) a floor cannot be shown to hold.
TEST(RegressionGateTest, AMetricWithoutAnIntervalFailsItsFloor) {
    const GateCheck c = named(evaluateGate(expecting(0.1), {{"packed_cache", measured(1.1, 2)}}),
                              "speedup forward_ms");
    EXPECT_FALSE(c.passed);
}

// A counter must be the same in every step and equal the baseline's values exactly in both arms.
TEST(RegressionGateTest, CountersMustMatchExactlyAndBeConstant) {
    AbComparison lost = measured(1.1);
    lost.counters[0].optimized = 8.0;
    const GateCheck off = named(evaluateGate(expecting(1.0), {{"packed_cache", lost}}),
                                "counter mask_builds_per_step");
    EXPECT_FALSE(off.passed);
    EXPECT_EQ(off.measured, "8 -> 8");

    AbComparison varies = measured(1.1);
    varies.counters[0].optimizedConstant = false;
    const GateCheck v = named(evaluateGate(expecting(1.0), {{"packed_cache", varies}}),
                              "counter mask_builds_per_step");
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.measured, "8 -> 1 (varies per step)");

    AbComparison missing = measured(1.1);
    missing.counters.clear();
    EXPECT_EQ(named(evaluateGate(expecting(1.0), {{"packed_cache", missing}}),
                    "counter mask_builds_per_step")
                  .measured,
              "missing");
}

TEST(RegressionGateTest, AToggleWithoutAnAbFailsOnlyItsComparisonCheck) {
    const std::vector<GateCheck> checks = evaluateGate(expecting(1.0), {});
    ASSERT_EQ(checks.size(), 1u);
    EXPECT_EQ(checks[0].check, "comparison");
    EXPECT_EQ(checks[0].measured, "none");
    EXPECT_FALSE(allPassed(checks));
}

TEST(RegressionGateTest, ALossThatDiffersFailsWhenTheBaselineWantsItEqual) {
    AbComparison differs = measured(1.1);
    differs.lossEqual = false;
    EXPECT_FALSE(named(evaluateGate(expecting(1.0), {{"packed_cache", differs}}), "loss").passed);
    GateBaseline tolerant = expecting(1.0);
    tolerant.toggles["packed_cache"].lossEqual = false;
    EXPECT_EQ(named(evaluateGate(tolerant, {{"packed_cache", differs}}), "loss").check, "absent");
}

// --update-baseline: constant counters kept, the primary metric's floor at 0.8 x the low end,
// rounded down to 0.01 (0.8 x 1.37 = 1.096 -> 1.09), and counters that vary left out.
TEST(RegressionGateTest, ABaselineFromMeasurementsFloorsAtEightTenthsOfTheLowEnd) {
    AbComparison c = measured(1.37);
    c.counters.push_back(CounterComparison{"reloads_per_step", 3.0, 2.0, true, false});
    const GateBaseline b = baselineFrom("tiny", "cpu", {{"packed_cache", c}});
    const ToggleExpectation& e = b.toggles.at("packed_cache");
    EXPECT_DOUBLE_EQ(e.minSpeedup.at("forward_ms"), 1.09);
    ASSERT_EQ(e.counters.size(), 1u);
    EXPECT_EQ(e.counters.at("mask_builds_per_step").optimized, 1.0);
    EXPECT_TRUE(e.lossEqual);
    EXPECT_TRUE(allPassed(evaluateGate(b, {{"packed_cache", c}})));
}

// A counter the runs do not store (a profiled program's: no reloads to count) passes an
// expectation of 0 -> 0, as baselines written before stored it; any other expectation fails.
TEST(RegressionGateTest, ACounterNotStoredPassesOnlyAnExpectationOfZero) {
    GateBaseline zero = expecting(1.0);
    zero.toggles["packed_cache"].counters["reloads_per_step"] = CounterExpectation{0.0, 0.0};
    const GateCheck notCounted =
        named(evaluateGate(zero, {{"packed_cache", measured(1.1)}}), "counter reloads_per_step");
    EXPECT_TRUE(notCounted.passed);
    EXPECT_EQ(notCounted.measured, "not counted");
    GateBaseline some = expecting(1.0);
    some.toggles["packed_cache"].counters["reloads_per_step"] = CounterExpectation{3.0, 3.0};
    EXPECT_FALSE(
        named(evaluateGate(some, {{"packed_cache", measured(1.1)}}), "counter reloads_per_step")
            .passed);
}

// An A/B whose steps were all warm-up compared nothing: it cannot set a baseline, and against one
// it fails, whatever its counters say.
TEST(RegressionGateTest, AnAbWithoutMeasuredStepsFailsTheGateAndCannotSetABaseline) {
    AbComparison nothing = measured(1.37);
    nothing.metrics.front().baselineSamples = 0;  // every step of the baseline was warm-up
    nothing.metrics.front().optimizedSamples = 0;
    const std::vector<GateCheck> checks = evaluateGate(expecting(1.0), {{"packed_cache", nothing}});
    EXPECT_FALSE(named(checks, "measured steps").passed);
    EXPECT_FALSE(allPassed(checks));
    EXPECT_THROW(baselineFrom("tiny", "cpu", {{"packed_cache", nothing}}), GlueprofError);

    EXPECT_EQ(
        named(evaluateGate(expecting(1.0), {{"packed_cache", measured(1.37)}}), "measured steps")
            .check,
        "absent");
}

}  // namespace
}  // namespace glueprof
