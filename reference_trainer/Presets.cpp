#include "reference_trainer/Presets.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "profiler/core/Error.h"

namespace glueprof {

namespace {

TrainConfig tinyConfig() {
    TrainConfig c;
    c.preset = "tiny";
    c.model = ModelConfig{256, 64, 4, 4, 2, 16, 176, 10000.0, 1e-6};
    c.seqLen = 128;
    c.microbatches = 1;
    c.docLengths = DocLengthDistribution{DocLengthDistribution::Kind::kLogNormal, 24.0, 0.5};
    return c;
}

TrainConfig smallConfig() {
    TrainConfig c;
    c.preset = "small";
    c.model = ModelConfig{1024, 256, 8, 8, 4, 32, 688, 10000.0, 1e-6};
    c.seqLen = 512;
    c.microbatches = 2;
    c.learningRate = 1e-3;
    // Instruction-tuning-like: most documents short, a long tail (median 64 tokens).
    c.docLengths = DocLengthDistribution{DocLengthDistribution::Kind::kLogNormal, 64.0, 0.7};
    return c;
}

}  // namespace

const std::vector<Preset>& presets() {
    static const std::vector<Preset> kPresets = {
        {"tiny", "4 layers, hidden 64, 128 tokens: for CI, seconds per A/B", tinyConfig()},
        {"small", "8 layers, hidden 256, 2 x 512 tokens: the CPU demo, under a minute per A/B",
         smallConfig()},
    };
    return kPresets;
}

std::string presetNames() {
    std::string names;
    for (const Preset& p : presets()) names += (names.empty() ? "" : ", ") + p.name;
    return names;
}

TrainConfig presetConfig(const std::string& name) {
    for (const Preset& p : presets()) {
        if (p.name == name) return p.config;
    }
    throw usageError(fmt::format("unknown preset '{}': choose one of {}", name, presetNames()));
}

std::int64_t estimateTrainerBytes(const TrainConfig& c) {
    const ModelConfig& m = c.model;
    const std::int64_t attention = m.hidden * (m.heads * m.headDim) * 2 +
                                   m.hidden * (m.kvHeads * m.headDim) * 2;
    const std::int64_t perLayer = attention + 3 * m.hidden * m.intermediate + 2 * m.hidden;
    const std::int64_t params = 2 * m.vocab * m.hidden + m.layers * perLayer + m.hidden;
    const std::int64_t t = c.seqLen;
    const std::int64_t checkpoints = m.layers * t * m.hidden;
    const std::int64_t oneLayer = t * (8 * m.hidden + 4 * m.intermediate) + 4 * m.heads * t * t;
    const std::int64_t maskAndLogits = 2 * t * t + 3 * t * m.vocab;
    const std::int64_t activations =
        (c.checkpoint ? checkpoints + oneLayer : m.layers * oneLayer) + maskAndLogits;
    return 4 * (4 * params + activations);  // fp32: weights, grads, two AdamW moments
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
    const std::int64_t needed = estimateTrainerBytes(config) * trainers;
    const std::int64_t available = availableMemoryBytes();
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    if (available > 0 && static_cast<double>(needed) > 0.8 * static_cast<double>(available)) {
        throw inputError(fmt::format(
            "preset '{}' needs about {:.1f} GiB for {} trainer(s) but only {:.1f} GiB is "
            "available: choose a smaller preset or lower --seq-len / --layers",
            config.preset, static_cast<double>(needed) / kGiB, trainers,
            static_cast<double>(available) / kGiB));
    }
}

}  // namespace glueprof
