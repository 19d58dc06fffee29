// The A/B verdict on a machine whose load changes (docs/metrics.md, "Load that changes between
// blocks"): deterministic A/Bs built from per-block step times and the machine_load each arm
// stores. A steady machine keeps the blocks' t interval as it was; an A/A whose optimized arm met
// another process's load in some blocks is no longer "faster"; a real effect measured beside such
// load is still detected; too few blocks to allow for it withhold the verdict, and say why.
#include <gtest/gtest.h>

#include <vector>

#include "analyzers/AbComparison.h"
#include "profiler/core/MachineLoad.h"

namespace glueprof {
namespace {

// One arm: a warm-up step, then `perBlock` steps per block of the given times (ms), and the load
// other processes put on the machine while each block's half ran (cores).
TraceModel arm(RunId id, const std::vector<double>& blockMs, const std::vector<double>& loadCores,
               int perBlock = 3) {
    RunSummary summary;
    summary.id = id;
    TraceModelBuilder b(summary);
    b.addLane(LaneKind::kHostThread, "main");
    TimestampNs t = 0;
    std::int32_t step = 0;
    const auto addStep = [&](double ms, std::int32_t block, bool warmup) {
        const auto duration = static_cast<TimestampNs>(ms * 1e6);
        b.addStep(StepInfo{step++, t, t + duration, warmup, block, 1.0, 0});
        t += duration;
    };
    addStep(blockMs.front(), 0, true);
    std::vector<BlockLoad> loads;
    for (std::size_t k = 0; k < blockMs.size(); ++k) {
        // A little spread inside the block, the same in every block and arm.
        for (int s = 0; s < perBlock; ++s)
            addStep(blockMs[k] * (1.0 + 0.002 * s), static_cast<std::int32_t>(k + 1), false);
        if (!loadCores.empty()) {
            BlockLoad load;
            load.block = static_cast<int>(k + 1);
            load.load.otherCores = loadCores[k];
            load.load.seconds = 0.5;
            loads.push_back(load);
        }
    }
    if (!loads.empty())
        b.addDiagnostic(Diagnostic{kMachineLoadDiagnostic, static_cast<std::int64_t>(loads.size()),
                                   blockLoadsJson(loads)});
    return std::move(b).build();
}

const MetricComparison& stepOf(const AbComparison& c) { return *c.metric(TimingMetric::kStep); }

// Ten blocks of small, balanced noise around `base` and `base / speedup`.
std::vector<double> noisy(double base, double factor, int sign) {
    const double wiggle[10] = {0.004,  -0.003, 0.002,  -0.004, 0.001,
                               -0.002, 0.003,  -0.001, 0.002,  -0.002};
    std::vector<double> ms;
    for (double w : wiggle) ms.push_back(base * factor * (1.0 + sign * w));
    return ms;
}

TEST(LoadDriftTest, ASteadyMachineKeepsTheBlocksIntervalAndSaysItWasSteady) {
    const std::vector<double> quiet(10, 0.05);
    const AbComparison plain = compareRuns("x", TimingMetric::kStep, arm(1, noisy(10, 1, 1), {}),
                                           arm(2, noisy(10, 1, -1), {}));
    const AbComparison steady = compareRuns(
        "x", TimingMetric::kStep, arm(1, noisy(10, 1, 1), quiet), arm(2, noisy(10, 1, -1), quiet));
    EXPECT_EQ(plain.load.blocks, 0u);
    EXPECT_EQ(steady.load.blocks, 10u);
    EXPECT_FALSE(steady.load.changed());
    EXPECT_FALSE(stepOf(steady).loadAdjusted);
    EXPECT_EQ(stepOf(steady).speedupLow, stepOf(plain).speedupLow);
    EXPECT_EQ(stepOf(steady).speedupHigh, stepOf(plain).speedupHigh);
}

// An A/A: in 4 of 10 blocks another process took a core while the optimized arm's half ran, and
// those halves took 30% longer, all of it in the same direction. The blocks' t interval calls it
// a change; with the load taken out there is none.
TEST(LoadDriftTest, AnAaWhoseArmsMetDifferentLoadsIsNoLongerSignificant) {
    std::vector<double> base = noisy(10, 1, 1);
    std::vector<double> opt = noisy(10, 1, -1);
    std::vector<double> baseLoad(10, 0.05), optLoad(10, 0.05);
    for (int k : {1, 4, 6, 8}) {
        opt[k] *= 1.3;
        optLoad[k] = 1.0;
    }
    // Before: the plain interval of the same blocks (no load stored) is significant, "slower".
    const AbComparison before =
        compareRuns("aa", TimingMetric::kStep, arm(1, base, {}), arm(2, opt, {}));
    EXPECT_EQ(before.verdict(), Verdict::kSlower);
    const AbComparison c =
        compareRuns("aa", TimingMetric::kStep, arm(1, base, baseLoad), arm(2, opt, optLoad));
    EXPECT_TRUE(c.load.changed());
    EXPECT_EQ(c.load.blocksDiffering, 4u);
    EXPECT_NEAR(c.load.maxDifference, 0.95, 1e-9);
    const MetricComparison& step = stepOf(c);
    EXPECT_TRUE(step.loadAdjusted);
    EXPECT_EQ(step.unadjustedLow, stepOf(before).speedupLow);
    EXPECT_EQ(step.unadjustedHigh, stepOf(before).speedupHigh);
    EXPECT_LT(step.speedupLow, 1.0);
    EXPECT_GT(step.speedupHigh, 1.0);
    EXPECT_NEAR(step.speedup, 1.0, 0.01);  // at equal load, the arms are one
    EXPECT_EQ(c.verdict(), Verdict::kNoSignificantChange);
}

// A real 25% speedup, measured while the load came and went in 3 blocks: still faster.
TEST(LoadDriftTest, ARealEffectBesideAChangingLoadIsStillDetected) {
    std::vector<double> base = noisy(12.5, 1, 1);
    std::vector<double> opt = noisy(10, 1, -1);
    std::vector<double> baseLoad(10, 0.05), optLoad(10, 0.05);
    for (int k : {2, 5}) {
        base[k] *= 1.2;
        baseLoad[k] = 0.8;
    }
    opt[7] *= 1.25;
    optLoad[7] = 1.0;
    const AbComparison c =
        compareRuns("ab", TimingMetric::kStep, arm(1, base, baseLoad), arm(2, opt, optLoad));
    EXPECT_TRUE(c.load.changed());
    EXPECT_TRUE(stepOf(c).loadAdjusted);
    EXPECT_EQ(c.verdict(), Verdict::kFaster);
    EXPECT_GT(stepOf(c).speedupLow, 1.1);
}

// Three blocks leave no degree of freedom to take the load out: no verdict, and it says why.
TEST(LoadDriftTest, TooFewBlocksToAllowForTheLoadWithholdTheVerdict) {
    const std::vector<double> base = {10.0, 10.1, 9.9};
    const std::vector<double> opt = {13.0, 10.0, 9.95};
    const AbComparison c = compareRuns("aa", TimingMetric::kStep, arm(1, base, {0.0, 0.0, 0.0}),
                                       arm(2, opt, {1.0, 0.0, 0.0}));
    EXPECT_TRUE(c.load.changed());
    EXPECT_TRUE(stepOf(c).loadWithheld);
    EXPECT_EQ(c.verdict(), Verdict::kLoadChanged);
    EXPECT_STREQ(toString(c.verdict()),
                 "no verdict (the machine's load changed too much between the arms)");
}

TEST(LoadDriftTest, BlockLoadsSurviveTheirJsonAndMalformedTextReadsAsNone) {
    BlockLoad load;
    load.block = 3;
    load.load = MachineLoad{0.5, 0.125, 4, 0.25};
    const std::vector<BlockLoad> back = parseBlockLoads(blockLoadsJson({load}));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].block, 3);
    EXPECT_EQ(back[0].load.otherCores, 0.5);
    EXPECT_EQ(back[0].load.stealCores, 0.125);
    EXPECT_EQ(back[0].load.runnable, 4);
    EXPECT_EQ(back[0].load.seconds, 0.25);
    EXPECT_TRUE(parseBlockLoads("[[1, 2]]").empty());
    EXPECT_TRUE(parseBlockLoads("not json").empty());
}

}  // namespace
}  // namespace glueprof
