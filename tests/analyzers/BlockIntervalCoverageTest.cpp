#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "analyzers/Statistics.h"
#include "analyzers/StudentT.h"

namespace glueprof {
namespace {

// Quantiles checked against tables (and against a Simpson integration of the t density).
TEST(StudentTTest, QuantilesMatchTheTables) {
    const struct {
        double df, t975, t80;
    } table[] = {{1, 12.706205, 1.376382},
                 {2, 4.302653, 1.060660},
                 {4, 2.776445, 0.940965},
                 {9, 2.262157, 0.883404},
                 {30, 2.042272, 0.853767}};
    for (const auto& row : table) {
        EXPECT_NEAR(studentTQuantile(0.975, row.df), row.t975, 1e-6) << row.df;
        EXPECT_NEAR(studentTQuantile(0.80, row.df), row.t80, 1e-6) << row.df;
        EXPECT_NEAR(studentTQuantile(0.025, row.df), -row.t975, 1e-6) << row.df;
        EXPECT_NEAR(studentTCdf(studentTQuantile(0.975, row.df), row.df), 0.975, 1e-12) << row.df;
    }
    EXPECT_EQ(studentTQuantile(0.5, 3), 0.0);
}

// Hand-worked: block ratios 2/1, 4/2 and 8/2: logs ln2, ln2, 2 ln2; mean 4 ln2 / 3 = 0.92420
// (ratio 2^(4/3) = 2.51984), deviations -ln2/3, -ln2/3, 2 ln2/3: sd = ln2 / sqrt(3), se = ln2 / 3 =
// 0.23105; t_0.975,2 = 4.30265, half width 0.99412: interval [exp(-0.06993), exp(1.91832)] =
// [0.93246, 6.80951]; minimum detectable exp((4.30265 + 1.06066) x 0.23105) = 3.45281.
TEST(BlockRatioTest, ATIntervalOnTheBlocksLogRatios) {
    const BlockRatioEstimate e =
        pairedBlockRatio({{2.0}, {3.0, 4.0, 5.0}, {8.0}}, {{1.0}, {2.0}, {2.0}});
    EXPECT_EQ(e.blocks, 3u);
    EXPECT_NEAR(e.ratio, std::cbrt(16.0), 1e-12);
    EXPECT_NEAR(e.interval.low, 0.93246, 1e-5);
    EXPECT_NEAR(e.interval.high, 6.80951, 1e-5);
    EXPECT_NEAR(e.minimumDetectable, 3.45281, 1e-5);
}

TEST(BlockRatioTest, BlocksWithoutAPositiveMedianInBothArmsAreLeftOut) {
    const BlockRatioEstimate e =
        pairedBlockRatio({{2.0}, {}, {0.0}, {2.0}, {2.0}}, {{1.0}, {1.0}, {1.0}, {1.0}, {1.0}});
    EXPECT_EQ(e.blocks, 3u);
    EXPECT_DOUBLE_EQ(e.ratio, 2.0);
    EXPECT_DOUBLE_EQ(e.interval.low, 2.0);  // no spread: a zero-width interval
    EXPECT_DOUBLE_EQ(e.minimumDetectable, 1.0);
    EXPECT_EQ(pairedBlockRatio({{2.0}}, {{1.0}}).interval.high, 0.0);  // one block: no interval
}

// One simulated interleaved A/B: `blocks` blocks of `steps` steps per arm. The machine's speed
// drifts from block to block (a random walk, 5% per block) and both arms of a block share it; each
// step adds Student-t noise (3 degrees of freedom: heavy tails) of 5%; with probability
// `outlierShare` a block is disturbed, one arm (either, equally likely) 1.5x slower throughout.
struct Simulation {
    std::size_t blocks;
    std::size_t steps = 4;
    double trueRatio = 1.2;
    double outlierShare = 0.1;
};

bool covers(const Simulation& sim, std::mt19937_64& rng) {
    std::normal_distribution<double> drift(0.0, 0.05);
    std::student_t_distribution<double> noise(3.0);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::vector<std::vector<double>> baseline(sim.blocks), optimized(sim.blocks);
    double level = 1.0;
    for (std::size_t k = 0; k < sim.blocks; ++k) {
        level *= std::exp(drift(rng));
        for (std::size_t s = 0; s < sim.steps; ++s) {
            baseline[k].push_back(level * sim.trueRatio * (1.0 + 0.05 * noise(rng)));
            optimized[k].push_back(level * (1.0 + 0.05 * noise(rng)));
        }
        if (uniform(rng) < sim.outlierShare) {
            for (double& v : uniform(rng) < 0.5 ? baseline[k] : optimized[k]) v *= 1.5;
        }
    }
    const BlockRatioEstimate e = pairedBlockRatio(baseline, optimized);
    return e.interval.low <= sim.trueRatio && sim.trueRatio <= e.interval.high;
}

// The coverage of the 95% interval: the share of 2,000 seeded simulated A/Bs whose interval holds
// the true ratio, for 3, 5 and 10 blocks, with and without disturbed blocks. At least 93% each.
TEST(BlockIntervalCoverageTest, TheIntervalHoldsTheTrueRatioInAtLeast93PercentOfAbs) {
    constexpr int kTrials = 2000;
    std::mt19937_64 rng(20261202);
    std::fprintf(stderr, "blocks  disturbed  true ratio  coverage\n");
    for (const std::size_t blocks : {3u, 5u, 10u}) {
        for (const double outliers : {0.0, 0.1, 0.2}) {
            for (const double ratio : {1.0, 1.2}) {
                int covered = 0;
                for (int t = 0; t < kTrials; ++t) {
                    covered += covers(Simulation{blocks, 4, ratio, outliers}, rng) ? 1 : 0;
                }
                const double share = static_cast<double>(covered) / kTrials;
                std::fprintf(stderr, "%6zu  %8.0f%%  %10.1f  %7.1f%%\n", blocks, outliers * 100.0,
                             ratio, share * 100.0);
                EXPECT_GE(share, 0.93) << blocks << " blocks, " << outliers << " disturbed";
            }
        }
    }
}

}  // namespace
}  // namespace glueprof
