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
    bool qkNorm = false;         // Qwen3: RMSNorm over each head's q and k
    bool attentionBias = false;  // gpt-oss: biases on q/k/v/o
    bool tieEmbeddings = false;  // the LM head shares the embedding matrix
    // Mixture of experts (gpt-oss): 0 experts = dense SwiGLU MLP in every layer.
    std::int64_t experts = 0;
    std::int64_t topK = 0;
    double swigluLimit = 7.0;  // gpt-oss clamps gate (above) and up (both sides) at this value

    bool isMoe() const { return experts > 0; }
};

// LoRA adapters on frozen base weights (rank 0 = full fine-tuning), optionally over an NF4 base.
struct LoraConfig {
    std::int64_t rank = 0;
    double alpha = 16.0;
    bool nf4 = false;  // QLoRA: the frozen base weights quantized to NF4, block 64
    bool enabled() const { return rank > 0; }
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
    std::int64_t seqLen = 128;      // tokens per packed micro-batch row
    std::int64_t microbatches = 1;  // gradient accumulation steps per optimizer step
    DocLengthDistribution docLengths;
    double learningRate = 3e-3;
    std::uint64_t seed = 1234;
    bool checkpoint = true;  // per-layer activation checkpointing (recompute in backward)
    std::string device = "cpu";
    int cudaDevice = 0;  // the GPU of --device cuda: a rank's LOCAL_RANK (one GPU per rank)
    double scale = 1.0;  // --scale applied to the preset's width and depth
    LoraConfig lora;
    std::string dataFile;                      // "" = synthetic documents; else UTF-8 text or JSONL
    std::int64_t offloadMinBytes = 16 * 1024;  // offload layer inputs at least this large
    int worldSize = 1;                         // ranks of a data-parallel run (--nproc, WORLD_SIZE)
    OptimizationSettings optimizations;
};

std::string toJson(const TrainConfig& config);

}  // namespace glueprof
