#include "analyzers/Statistics.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "analyzers/StudentT.h"

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

double linearQuantile(const std::vector<double>& ascending, double q) {
    const double position = q * static_cast<double>(ascending.size() - 1);
    const std::size_t low = static_cast<std::size_t>(std::floor(position));
    const std::size_t high = std::min(low + 1, ascending.size() - 1);
    return ascending[low] +
           (ascending[high] - ascending[low]) * (position - static_cast<double>(low));
}

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

BlockRatioEstimate pairedBlockRatio(const std::vector<std::vector<double>>& numeratorBlocks,
                                    const std::vector<std::vector<double>>& denominatorBlocks) {
    std::vector<double> logRatios;
    const std::size_t blocks = std::min(numeratorBlocks.size(), denominatorBlocks.size());
    for (std::size_t k = 0; k < blocks; ++k) {
        if (numeratorBlocks[k].empty() || denominatorBlocks[k].empty()) continue;
        const double num = median(numeratorBlocks[k]);
        const double den = median(denominatorBlocks[k]);
        if (num > 0.0 && den > 0.0) logRatios.push_back(std::log(num / den));
    }
    BlockRatioEstimate estimate;
    estimate.blocks = logRatios.size();
    if (logRatios.size() < 2) return estimate;
    const double n = static_cast<double>(logRatios.size());
    double mean = 0.0;
    for (double r : logRatios) mean += r;
    mean /= n;
    double squares = 0.0;
    for (double r : logRatios) squares += (r - mean) * (r - mean);
    const double standardError = std::sqrt(squares / (n - 1.0) / n);
    const double df = n - 1.0;
    const double halfWidth = studentTQuantile(0.975, df) * standardError;
    estimate.ratio = std::exp(mean);
    estimate.interval = RatioInterval{std::exp(mean - halfWidth), std::exp(mean + halfWidth)};
    estimate.minimumDetectable =
        std::exp((studentTQuantile(0.975, df) + studentTQuantile(0.80, df)) * standardError);
    return estimate;
}

LoadAdjustedRatio loadAdjustedBlockRatio(const std::vector<double>& logRatios,
                                         const std::vector<double>& loadDifferences) {
    LoadAdjustedRatio adjusted;
    const std::size_t count = std::min(logRatios.size(), loadDifferences.size());
    if (count < 4) return adjusted;
    const double n = static_cast<double>(count);
    double meanX = 0.0, meanY = 0.0;
    for (std::size_t k = 0; k < count; ++k) {
        meanX += loadDifferences[k];
        meanY += logRatios[k];
    }
    meanX /= n;
    meanY /= n;
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t k = 0; k < count; ++k) {
        sxx += (loadDifferences[k] - meanX) * (loadDifferences[k] - meanX);
        sxy += (loadDifferences[k] - meanX) * (logRatios[k] - meanY);
    }
    if (!(sxx > 1e-12)) return adjusted;
    const double slope = sxy / sxx;
    const double intercept = meanY - slope * meanX;
    double residuals = 0.0;
    for (std::size_t k = 0; k < count; ++k) {
        const double e = logRatios[k] - intercept - slope * loadDifferences[k];
        residuals += e * e;
    }
    const double df = n - 2.0;
    const double standardError = std::sqrt(residuals / df * (1.0 / n + meanX * meanX / sxx));
    const double halfWidth = studentTQuantile(0.975, df) * standardError;
    adjusted.computed = true;
    adjusted.slope = slope;
    adjusted.ratio = std::exp(intercept);
    adjusted.interval =
        RatioInterval{std::exp(intercept - halfWidth), std::exp(intercept + halfWidth)};
    adjusted.minimumDetectable =
        std::exp((studentTQuantile(0.975, df) + studentTQuantile(0.80, df)) * standardError);
    return adjusted;
}

}  // namespace glueprof
