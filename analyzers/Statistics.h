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

}  // namespace glueprof
