#pragma once
// Small, deterministic statistics for A/B comparisons.
#include <cstdint>
#include <vector>

namespace glueprof {

double median(std::vector<double> values);  // 0 for an empty input

struct RatioInterval {
    double low = 0.0;
    double high = 0.0;
};

// Percentile bootstrap 95% interval of median(numerator) / median(denominator), resampling each
// sample independently with replacement. Deterministic for a given seed.
RatioInterval bootstrapMedianRatio(const std::vector<double>& numerator,
                                   const std::vector<double>& denominator, int resamples = 2000,
                                   std::uint64_t seed = 0x9e3779b97f4a7c15ull);

// Paired block bootstrap 95% interval of median(numerator) / median(denominator): each resample
// draws block indices with replacement — the same draws for both arms, since block k of one arm
// ran beside block k of the other — and takes the medians of the drawn blocks' samples. Blocks,
// not steps, are the independent units of an interleaved A/B (steps of one block share its
// drift). Both lists hold the same number of blocks; empty blocks are ignored.
RatioInterval bootstrapBlockMedianRatio(const std::vector<std::vector<double>>& numeratorBlocks,
                                        const std::vector<std::vector<double>>& denominatorBlocks,
                                        int resamples = 2000,
                                        std::uint64_t seed = 0x9e3779b97f4a7c15ull);

// The fewest blocks (or, for runs without blocks, samples per arm) an interval and a verdict need.
constexpr std::size_t kMinBlocksForVerdict = 3;

}  // namespace glueprof
