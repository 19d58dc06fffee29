#include <gtest/gtest.h>

#include "analyzers/AbComparison.h"
#include "app/report/VerdictText.h"

namespace glueprof {
namespace {

MetricComparison withDetectable(double minimumDetectable) {
    MetricComparison m;
    m.speedup = 1.01;
    m.speedupLow = 0.95;
    m.speedupHigh = 1.07;
    m.blocks = 6;
    m.pairedBlocks = true;
    m.minimumDetectable = minimumDetectable;
    return m;
}

// Every "no significant change" says what the A/B could have seen; a significant verdict needs no
// such clause.
TEST(VerdictTextTest, ANullVerdictSaysTheSmallestEffectItCouldHaveSeen) {
    EXPECT_EQ(verdictText(Verdict::kNoSignificantChange, withDetectable(1.062)),
              "no significant change; this A/B could have detected >= 6.2%");
    EXPECT_EQ(verdictText(Verdict::kNoSignificantChange, withDetectable(1.35)),
              "no significant change; this A/B could have detected >= 35%");
    EXPECT_EQ(verdictText(Verdict::kNoSignificantChange, withDetectable(19.25)),
              "no significant change; this A/B could have detected >= 19.2x");
    EXPECT_EQ(verdictText(Verdict::kFaster, withDetectable(1.062)), "faster");
    EXPECT_EQ(verdictText(Verdict::kNoSignificantChange, withDetectable(0.0)),
              "no significant change");
}

// offload's target, the reload wait, is 0 in the baseline arm (nothing is offloaded): the change
// adds it. The text says so instead of a ratio against 0 ("0.000x [0.000, 0.000]").
TEST(VerdictTextTest, ATargetTheBaselineDoesNotHaveIsAddedByTheChange) {
    TargetComparison target;
    target.metric = TargetMetric::kReloadWait;
    target.stats.baseline = 0.0;
    target.stats.optimized = 0.095;
    target.stats.speedup = target.stats.speedupLow = target.stats.speedupHigh = 0.0;
    target.stats.blocks = 10;
    target.stats.pairedBlocks = true;
    target.stats.baselineSamples = target.stats.optimizedSamples = 80;
    target.stats.anyNonZero = true;
    target.stats.baselineAllZero = true;
    target.baselineStepMs = 13.545;
    const std::string text = targetVerdictText(target);
    EXPECT_NE(text.find("0.000 -> 0.095 ms per step, added by the change (none in the baseline): "
                        "slower"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("0.000x"), std::string::npos) << text;

    AbComparison c;
    MetricComparison step = withDetectable(1.03);
    step.metric = TimingMetric::kStep;
    step.baseline = 13.545;
    step.optimized = 13.850;
    step.speedup = 0.979;
    step.speedupLow = 0.960;
    step.speedupHigh = 0.997;
    step.baselineSamples = step.optimizedSamples = 80;
    step.anyNonZero = true;
    c.metrics.push_back(step);
    c.target = target;
    const std::string endToEnd = endToEndVerdictText(c);
    EXPECT_NE(endToEnd.find("the target, new in the optimized arm, is 0.7% of its step"),
              std::string::npos)
        << endToEnd;

    // A baseline whose median is 0 but whose steps are not all 0 has it: a ratio, not "added".
    target.stats.baselineAllZero = false;
    EXPECT_EQ(targetVerdictText(target).find("added by the change"), std::string::npos);
}

}  // namespace
}  // namespace glueprof
