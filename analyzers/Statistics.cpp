#include "analyzers/Statistics.h"

#include <algorithm>
#include <random>

namespace glueprof {

namespace {

// The 2.5th and 97.5th percentiles of the resampled ratios; empty when none.
RatioInterval percentileInterval(std::vector<double> ratios) {
    if (ratios.empty()) return {};
    std::sort(ratios.begin(), ratios.end());
    auto at = [&](double q) {
        auto index = static_cast<std::size_t>(q * static_cast<double>(ratios.size() - 1) + 0.5);
        return ratios[std::min(index, ratios.size() - 1)];
    };
    return RatioInterval{at(0.025), at(0.975)};
}

}  // namespace

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid),
                     values.end());
    double upper = values[mid];
    if (values.size() % 2 == 1) return upper;
    double lower =
        *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
    return (lower + upper) / 2.0;
}

RatioInterval bootstrapMedianRatio(const std::vector<double>& numerator,
                                   const std::vector<double>& denominator, int resamples,
                                   std::uint64_t seed) {
    if (numerator.empty() || denominator.empty() || resamples <= 0) return {};
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pickNum(0, numerator.size() - 1);
    std::uniform_int_distribution<std::size_t> pickDen(0, denominator.size() - 1);
    std::vector<double> ratios;
    ratios.reserve(static_cast<std::size_t>(resamples));
    std::vector<double> num(numerator.size());
    std::vector<double> den(denominator.size());
    for (int r = 0; r < resamples; ++r) {
        for (double& v : num) v = numerator[pickNum(rng)];
        for (double& v : den) v = denominator[pickDen(rng)];
        double d = median(den);
        if (d > 0.0) ratios.push_back(median(num) / d);
    }
    return percentileInterval(std::move(ratios));
}

RatioInterval bootstrapBlockMedianRatio(const std::vector<std::vector<double>>& numeratorBlocks,
                                        const std::vector<std::vector<double>>& denominatorBlocks,
                                        int resamples, std::uint64_t seed) {
    const std::size_t blocks = std::min(numeratorBlocks.size(), denominatorBlocks.size());
    if (blocks == 0 || resamples <= 0) return {};
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, blocks - 1);
    std::vector<double> ratios;
    ratios.reserve(static_cast<std::size_t>(resamples));
    std::vector<double> num;
    std::vector<double> den;
    for (int r = 0; r < resamples; ++r) {
        num.clear();
        den.clear();
        for (std::size_t b = 0; b < blocks; ++b) {
            const std::size_t k = pick(rng);
            num.insert(num.end(), numeratorBlocks[k].begin(), numeratorBlocks[k].end());
            den.insert(den.end(), denominatorBlocks[k].begin(), denominatorBlocks[k].end());
        }
        if (num.empty() || den.empty()) continue;
        const double d = median(den);
        if (d > 0.0) ratios.push_back(median(num) / d);
    }
    return percentileInterval(std::move(ratios));
}

}  // namespace glueprof
