#include <gtest/gtest.h>

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

}  // namespace
}  // namespace glueprof
