#pragma once
// Built-in presets and the memory check made before anything is allocated.
#include <cstdint>
#include <string>
#include <vector>

#include "reference_trainer/TrainConfig.h"

namespace glueprof {

struct Preset {
    std::string name;
    std::string description;
    TrainConfig config;
    std::string source;  // where a published model's shape comes from (assets/presets/NAME.json)
};

const std::vector<Preset>& presets();
// The preset scaled by `scale` (0 < scale <= 1, see scaleModel). Throws a usage error naming the
// known presets when `name` is unknown, and one for a scale outside (0, 1].
TrainConfig presetConfig(const std::string& name, double scale = 1.0);
std::string presetNames();

// Shrinks width and depth by `scale`: layers, KV heads (query heads keep their group size),
// hidden and intermediate sizes (multiples of 8). Head dim, vocabulary, experts and top-k stay.
ModelConfig scaleModel(ModelConfig model, double scale);

// Parameter counts of a model: all, and those the optimizer trains under `lora`.
struct ParameterCounts {
    std::int64_t total = 0;
    std::int64_t projections = 0;  // the linear layers LoRA wraps (q/k/v/o, dense gate/up/down)
    std::int64_t adapters = 0;     // LoRA A and B
};
ParameterCounts countParameters(const ModelConfig& model, const LoraConfig& lora);

// Estimated peak bytes of one trainer: weights (frozen ones without gradients or AdamW state, NF4
// ones at 4.5 bits), gradients and AdamW state of what trains, checkpointed activations, one
// layer's recompute, the mask and the logits; fp32.
std::int64_t estimateTrainerBytes(const TrainConfig& config);
std::int64_t availableMemoryBytes();  // MemAvailable from /proc/meminfo; 0 when unknown
// Throws an input error when `trainers` trainers of this config would not fit in memory.
void checkFitsInMemory(const TrainConfig& config, int trainers);

}  // namespace glueprof
