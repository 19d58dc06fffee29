#pragma once
// The reference trainer's configuration: model shape, data, optimization settings.
#include <cstdint>
#include <string>

#include "optimizations/ToggleRegistry.h"

namespace glueprof {

struct ModelConfig {
    std::int64_t vocab = 256;
    std::int64_t hidden = 64;
    std::int64_t layers = 4;
    std::int64_t heads = 4;
    std::int64_t kvHeads = 2;
    std::int64_t headDim = 16;
    std::int64_t intermediate = 176;
    double ropeTheta = 10000.0;
    double rmsEps = 1e-6;
};

// Document lengths of the synthetic packed data.
struct DocLengthDistribution {
    enum class Kind { kFixed, kUniform, kLogNormal } kind = Kind::kLogNormal;
    double a = 24.0;  // fixed: length; uniform: min; lognormal: median length in tokens
    double b = 0.5;   // uniform: max; lognormal: sigma of log length
    std::string describe() const;
};
// Parses "fixed:N", "uniform:MIN,MAX" or "lognormal:MEDIAN,SIGMA"; throws a usage error.
DocLengthDistribution parseDocLengthDistribution(const std::string& text);

struct TrainConfig {
    std::string preset = "tiny";
    ModelConfig model;
    std::int64_t seqLen = 128;         // tokens per packed micro-batch row
    std::int64_t microbatches = 1;     // gradient accumulation steps per optimizer step
    DocLengthDistribution docLengths;
    double learningRate = 3e-3;
    std::uint64_t seed = 1234;
    bool checkpoint = true;            // per-layer activation checkpointing (recompute in backward)
    std::string device = "cpu";
    OptimizationSettings optimizations;
};

std::string toJson(const TrainConfig& config);

}  // namespace glueprof
