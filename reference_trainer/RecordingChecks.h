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

// The device exists in this build (cpu, or cuda with a CUDA libtorch and a GPU), `trainers`
// trainers of `config` fit in memory, the database's directory exists.
void checkTrainingRequest(const TrainConfig& config, const std::string& db, int trainers);

// Whether this libtorch sees a CUDA device (asked once); `why` says what is missing when not.
bool cudaAvailable(std::string& why);

}  // namespace glueprof
