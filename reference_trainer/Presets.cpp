#include "reference_trainer/Presets.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "profiler/core/Error.h"
#include "reference_trainer/model/Nf4.h"

namespace glueprof {

namespace {

// Instruction-tuning-like packed documents: most short, a long tail.
DocLengthDistribution sftDocuments(double median) {
    return DocLengthDistribution{DocLengthDistribution::Kind::kLogNormal, median, 0.7};
}

TrainConfig cpuConfig(const std::string& name, ModelConfig model, std::int64_t seqLen,
                      std::int64_t microbatches, double learningRate, double medianDoc) {
    TrainConfig c;
    c.preset = name;
    c.model = model;
    c.seqLen = seqLen;
    c.microbatches = microbatches;
    c.learningRate = learningRate;
    c.docLengths = sftDocuments(medianDoc);
    return c;
}

// The published models: shapes from their config.json (assets/presets/NAME.json cites each),
// 2 packed micro-batches of 2048 tokens (the length of the published mask-build measurement),
// LoRA rank 16 as Unsloth's notebooks train them; Qwen3-14B as QLoRA (NF4 base).
TrainConfig publishedConfig(const std::string& name, ModelConfig model, LoraConfig lora) {
    TrainConfig c = cpuConfig(name, model, 2048, 2, 2e-4, 256.0);
    c.lora = lora;
    return c;
}

ModelConfig shape(std::int64_t vocab, std::int64_t hidden, std::int64_t layers, std::int64_t heads,
                  std::int64_t kvHeads, std::int64_t headDim, std::int64_t intermediate,
                  double ropeTheta, double rmsEps) {
    ModelConfig m;
    m.vocab = vocab;
    m.hidden = hidden;
    m.layers = layers;
    m.heads = heads;
    m.kvHeads = kvHeads;
    m.headDim = headDim;
    m.intermediate = intermediate;
    m.ropeTheta = ropeTheta;
    m.rmsEps = rmsEps;
    return m;
}

ModelConfig withMoe(ModelConfig m, std::int64_t experts, std::int64_t topK) {
    m.experts = experts;
    m.topK = topK;
    return m;
}

std::vector<Preset> buildPresets() {
    const LoraConfig lora16{16, 32.0, false};
    const LoraConfig qlora16{16, 32.0, true};

    ModelConfig llama = shape(128256, 2048, 16, 32, 8, 64, 8192, 500000.0, 1e-5);
    llama.tieEmbeddings = true;
    ModelConfig qwenSmall = shape(151936, 1024, 28, 16, 8, 128, 3072, 1000000.0, 1e-6);
    qwenSmall.qkNorm = true;
    qwenSmall.tieEmbeddings = true;
    ModelConfig qwenLarge = shape(151936, 5120, 40, 40, 8, 128, 17408, 1000000.0, 1e-6);
    qwenLarge.qkNorm = true;
    ModelConfig gptOss = withMoe(shape(201088, 2880, 24, 64, 8, 64, 2880, 150000.0, 1e-5), 32, 4);
    gptOss.attentionBias = true;

    ModelConfig moeTiny = withMoe(shape(256, 64, 2, 4, 2, 16, 64, 10000.0, 1e-5), 8, 2);
    moeTiny.attentionBias = true;
    ModelConfig moeSmall = withMoe(shape(1024, 256, 4, 8, 4, 32, 256, 10000.0, 1e-5), 16, 4);
    moeSmall.attentionBias = true;

    return {
        {"tiny", "4 layers, hidden 64, 128 tokens: for CI, seconds per A/B",
         cpuConfig("tiny", shape(256, 64, 4, 4, 2, 16, 176, 10000.0, 1e-6), 128, 1, 3e-3, 24.0),
         ""},
        {"small", "8 layers, hidden 256, 2 x 512 tokens: the CPU demo, under a minute per A/B",
         cpuConfig("small", shape(1024, 256, 8, 8, 4, 32, 688, 10000.0, 1e-6), 512, 2, 1e-3, 64.0),
         ""},
        {"moe-tiny", "2 MoE layers of 8 experts (top-2), hidden 64, 128 tokens: MoE toggles in CI",
         cpuConfig("moe-tiny", moeTiny, 128, 1, 3e-3, 24.0), ""},
        {"moe-small",
         "4 MoE layers of 16 experts (top-4), hidden 256, 2 x 256 tokens: the MoE demo",
         cpuConfig("moe-small", moeSmall, 256, 2, 1e-3, 64.0), ""},
        {"llama-3.2-1b", "Llama-3.2-1B shape, LoRA r16, 2 x 2048 tokens (use --scale on CPU)",
         publishedConfig("llama-3.2-1b", llama, lora16),
         "https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json"},
        {"qwen3-0.6b", "Qwen3-0.6B shape, LoRA r16, 2 x 2048 tokens (use --scale on CPU)",
         publishedConfig("qwen3-0.6b", qwenSmall, lora16),
         "https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json"},
        {"qwen3-14b", "Qwen3-14B shape, QLoRA (NF4 base) r16, 2 x 2048 tokens (use --scale on CPU)",
         publishedConfig("qwen3-14b", qwenLarge, qlora16),
         "https://huggingface.co/Qwen/Qwen3-14B/blob/main/config.json"},
        {"gpt-oss-20b",
         "gpt-oss-20b shape: 24 MoE layers, 32 experts top-4, LoRA r16 (use --scale on CPU)",
         publishedConfig("gpt-oss-20b", gptOss, lora16),
         "https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json"},
    };
}

std::int64_t roundTo8(double value) {
    return std::max<std::int64_t>(8, static_cast<std::int64_t>(std::llround(value / 8.0)) * 8);
}

}  // namespace

const std::vector<Preset>& presets() {
    static const std::vector<Preset> kPresets = buildPresets();
    return kPresets;
}

std::string presetNames() {
    std::string names;
    for (const Preset& p : presets()) names += (names.empty() ? "" : ", ") + p.name;
    return names;
}

ModelConfig scaleModel(ModelConfig m, double scale) {
    if (scale == 1.0) return m;
    const std::int64_t group = m.heads / m.kvHeads;
    m.layers = std::max<std::int64_t>(1, std::llround(static_cast<double>(m.layers) * scale));
    m.kvHeads = std::max<std::int64_t>(1, std::llround(static_cast<double>(m.kvHeads) * scale));
    m.heads = m.kvHeads * group;
    m.hidden = roundTo8(static_cast<double>(m.hidden) * scale);
    m.intermediate = roundTo8(static_cast<double>(m.intermediate) * scale);
    return m;
}

TrainConfig presetConfig(const std::string& name, double scale) {
    if (!(scale > 0.0 && scale <= 1.0)) {
        throw usageError(
            fmt::format("bad --scale {}: use a factor in (0, 1], e.g. 0.05 on CPU", scale));
    }
    for (const Preset& p : presets()) {
        if (p.name == name) {
            TrainConfig config = p.config;
            config.model = scaleModel(config.model, scale);
            config.scale = scale;
            return config;
        }
    }
    throw usageError(fmt::format("unknown preset '{}': choose one of {}", name, presetNames()));
}

ParameterCounts countParameters(const ModelConfig& m, const LoraConfig& lora) {
    const std::int64_t q = m.heads * m.headDim;
    const std::int64_t kv = m.kvHeads * m.headDim;
    const std::int64_t attention = m.hidden * q * 2 + m.hidden * kv * 2;
    const std::int64_t dense = m.isMoe() ? 0 : 3 * m.hidden * m.intermediate;
    const std::int64_t experts =
        m.isMoe() ? m.experts * (3 * m.hidden * m.intermediate + 3 * m.intermediate) +
                        m.hidden * m.experts + m.experts
                  : 0;
    const std::int64_t norms = 2 * m.hidden + (m.qkNorm ? 2 * m.headDim : 0);
    const std::int64_t biases = m.attentionBias ? q + 2 * kv + m.hidden : 0;
    ParameterCounts counts;
    counts.projections = m.layers * (attention + dense);
    const std::int64_t embeddings = m.vocab * m.hidden * (m.tieEmbeddings ? 1 : 2);
    counts.total =
        counts.projections + m.layers * (experts + norms + biases) + embeddings + m.hidden;
    if (lora.enabled()) {
        // r * (in + out) per wrapped projection.
        std::int64_t perLayer = lora.rank * ((m.hidden + q) * 2 + (m.hidden + kv) * 2);
        if (!m.isMoe()) perLayer += lora.rank * 3 * (m.hidden + m.intermediate);
        counts.adapters = m.layers * perLayer;
    }
    return counts;
}

std::int64_t estimateTrainerBytes(const TrainConfig& c) {
    const ModelConfig& m = c.model;
    const ParameterCounts counts = countParameters(m, c.lora);
    double weights = 0.0;
    if (c.lora.enabled()) {
        const double projectionBytes = c.lora.nf4 ? 0.5 + 4.0 / kNf4BlockSize : 4.0;
        weights = projectionBytes * static_cast<double>(counts.projections) +
                  4.0 * static_cast<double>(counts.total - counts.projections) +
                  16.0 * static_cast<double>(counts.adapters);  // weight, grad, two moments
    } else {
        weights = 16.0 * static_cast<double>(counts.total);
    }
    const std::int64_t t = c.seqLen;
    const std::int64_t width = m.isMoe() ? m.intermediate * m.topK : m.intermediate;
    const std::int64_t checkpoints = m.layers * t * m.hidden;
    const std::int64_t oneLayer = t * (8 * m.hidden + 4 * width) + 4 * m.heads * t * t;
    const std::int64_t maskAndLogits = 2 * t * t + 3 * t * m.vocab;
    const std::int64_t activations =
        (c.checkpoint ? checkpoints + oneLayer : m.layers * oneLayer) + maskAndLogits;
    return static_cast<std::int64_t>(weights) + 4 * activations;
}

std::int64_t availableMemoryBytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        std::istringstream fields(line);
        std::string key;
        std::int64_t kib = 0;
        if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
    }
    return 0;
}

void checkFitsInMemory(const TrainConfig& config, int trainers) {
    if (config.device != "cpu")
        return;  // device memory: the allocator's out-of-memory error says it
    const std::int64_t needed = estimateTrainerBytes(config) * trainers;
    const std::int64_t available = availableMemoryBytes();
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    // The estimate leaves out the allocator's slack and the trace buffers: it may use only 80% of
    // what is available.
    constexpr double kUsableShare = 0.8;
    const double usable = kUsableShare * static_cast<double>(available);
    if (available > 0 && static_cast<double>(needed) > usable) {
        throw inputError(fmt::format(
            "preset '{}' (scale {:g}) needs about {:.1f} GiB for {} trainer(s), more than the "
            "{:.1f} GiB it may use ({:.0f}% of the {:.1f} GiB available, leaving room for the "
            "allocator and the trace): lower --scale or --seq-len, or choose a smaller preset",
            config.preset, config.scale, static_cast<double>(needed) / kGiB, trainers,
            usable / kGiB, 100 * kUsableShare, static_cast<double>(available) / kGiB));
    }
}

}  // namespace glueprof
