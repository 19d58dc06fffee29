#pragma once
// What every recording command (`run`, `ab`, `simulate --preset`, the GUI's Run A/B) checks before
// it creates or opens the database, so a request that cannot run fails with a one-line usage or
// input error and leaves no file behind. Torch-free header.
#include <string>

#include "optimizations/ToggleRegistry.h"
#include "reference_trainer/TrainConfig.h"

namespace glueprof {

// The toggle `name`, when the model can run it; else a usage error naming the choices.
const Toggle& resolveToggle(const std::string& name, const TrainConfig& config);

// The device exists in this build (cpu, or cuda with a CUDA libtorch and GPU config.cudaDevice;
// with `localRanks` ranks to start on this machine, GPUs 0 .. localRanks - 1: one per rank),
// `trainers` trainers of `config` fit in memory, the database's directory exists.
void checkTrainingRequest(const TrainConfig& config, const std::string& db, int trainers,
                          int localRanks = 1);

}  // namespace glueprof
