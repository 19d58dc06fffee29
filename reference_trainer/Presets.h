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
};

const std::vector<Preset>& presets();
// Throws a usage error naming the known presets when `name` is unknown.
TrainConfig presetConfig(const std::string& name);
std::string presetNames();

// Estimated peak bytes of one trainer (weights, gradients, AdamW state, checkpointed activations,
// one layer's recompute, the mask and the logits), fp32.
std::int64_t estimateTrainerBytes(const TrainConfig& config);
std::int64_t availableMemoryBytes();  // MemAvailable from /proc/meminfo; 0 when unknown
// Throws an input error when `trainers` trainers of this config would not fit in memory.
void checkFitsInMemory(const TrainConfig& config, int trainers);

}  // namespace glueprof
