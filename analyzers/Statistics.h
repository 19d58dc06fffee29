#pragma once
// Small, deterministic statistics for A/B comparisons.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace glueprof {

double median(std::vector<double> values);  // 0 for an empty input

// Of rows of N figures (one row per step, a figure per cause), each column's median and mean (0
// for no rows): what a typical step spends on each cause, and what a saving per step can claim.
template <std::size_t N>
void columnMediansAndMeans(const std::vector<std::array<double, N>>& rows,
                           std::array<double, N>& medians, std::array<double, N>& means) {
    for (std::size_t c = 0; c < N; ++c) {
        std::vector<double> values;
        double sum = 0.0;
        for (const auto& row : rows) {
            values.push_back(row[c]);
            sum += row[c];
        }
        medians[c] = median(values);
        means[c] = rows.empty() ? 0.0 : sum / static_cast<double>(rows.size());
    }
}

// pandas' Series.quantile (linear interpolation between the closest ranks) of `ascending`, a
// non-empty sorted list; 0 <= q <= 1.
double linearQuantile(const std::vector<double>& ascending, double q);

struct RatioInterval {
    double low = 0.0;
    double high = 0.0;
};

// Percentile bootstrap 95% interval of median(numerator) / median(denominator), resampling each
// sample independently with replacement. Deterministic for a given seed.
RatioInterval bootstrapMedianRatio(const std::vector<double>& numerator,
                                   const std::vector<double>& denominator, int resamples = 2000,
                                   std::uint64_t seed = 0x9e3779b97f4a7c15ull);

// What pairedBlockRatio finds.
struct BlockRatioEstimate {
    double ratio = 0.0;  // exp(mean log ratio): the geometric mean of the block ratios
    RatioInterval interval;
    // The smallest ratio (>= 1) this A/B's noise lets it detect 4 times in 5 at the 95% level:
    // exp((t_0.975 + t_0.80) x standard error of the mean log ratio).
    double minimumDetectable = 0.0;
    std::size_t blocks = 0;  // blocks whose medians are positive in both arms: the ones used
};

// The ratio of two arms of an interleaved A/B from its paired blocks: per block the ratio of the
// arms' medians, and a Student t interval on the mean of their logarithms (df = blocks - 1).
// Blocks, not steps, are the independent units; a t interval keeps its coverage with 3 blocks,
// where a percentile bootstrap over blocks has at most 10 distinct resamples and an interval about
// as wide as the range of the block ratios, far narrower than their noise (docs/metrics.md, "A/B
// statistics"; tests/analyzers/BlockIntervalCoverageTest.cpp shows the coverage).
// Both lists hold the same number of blocks; a block with an empty arm or a median <= 0 on either
// side is left out. Fewer than two usable blocks: blocks = the count, nothing else set.
BlockRatioEstimate pairedBlockRatio(const std::vector<std::vector<double>>& numeratorBlocks,
                                    const std::vector<std::vector<double>>& denominatorBlocks);

// The log ratios of an A/B's blocks with the machine load that differed between each block's two
// arms taken out (docs/metrics.md, "Load that changes between blocks"): the least-squares line
// log r_k = a + b d_k through the blocks, d_k = the baseline half's load - the optimized half's
// (cores of other processes and steal), and a Student t interval on a, the log ratio at equal
// load (df = blocks - 2, the slope's degree of freedom spent). `computed` is false with fewer
// than 4 blocks (3 would leave one degree of freedom: t_0.975 = 12.7, an interval too wide to
// read) or load differences that are the same in every block (no line to draw).
struct LoadAdjustedRatio {
    bool computed = false;
    double ratio = 0.0;  // exp(a)
    RatioInterval interval;
    double minimumDetectable = 0.0;
    double slope = 0.0;  // b: the change in log ratio per core of load difference
};
LoadAdjustedRatio loadAdjustedBlockRatio(const std::vector<double>& logRatios,
                                         const std::vector<double>& loadDifferences);

// The fewest blocks (or, for runs without blocks, samples per arm) an interval and a verdict need.
constexpr std::size_t kMinBlocksForVerdict = 3;

}  // namespace glueprof
