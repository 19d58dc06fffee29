#include "reference_trainer/RecordingChecks.h"

#include <torch/torch.h>

#include <fmt/format.h>

#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"
#include "reference_trainer/Presets.h"

namespace glueprof {

namespace {

// Refuses a device this build cannot train on, before the database exists.
void checkDevice(const std::string& device) {
    if (device == "cpu") return;
    if (device != "cuda") {
        throw usageError(fmt::format("unknown device '{}': choose cpu or cuda", device));
    }
    std::string why;
    if (!cudaAvailable(why)) throw usageError("--device cuda: " + why);
}

}  // namespace

bool cudaAvailable(std::string& why) {
    static const bool available = torch::cuda::is_available();  // ask the driver once
    if (!available) {
        why =
            "this libtorch has no CUDA or no GPU is visible (build against a CUDA libtorch with "
            "TORCH_DIR)";
    }
    return available;
}

const Toggle& resolveToggle(const std::string& name, const TrainConfig& config) {
    const Toggle* toggle = findToggle(name);
    if (toggle == nullptr) {
        throw usageError(fmt::format("unknown toggle '{}': choose from {}", name, toggleNames()));
    }
    const std::string reason =
        notApplicableReason(*toggle->info, config.model.isMoe(), config.worldSize);
    if (!reason.empty()) {
        throw usageError(
            fmt::format("toggle '{}' does not apply to this run (preset '{}', {} "
                        "rank(s)): {}",
                        name, config.preset, config.worldSize, reason));
    }
    return *toggle;
}

void checkTrainingRequest(const TrainConfig& config, const std::string& db, int trainers) {
    checkDevice(config.device);
    checkFitsInMemory(config, trainers);
    requireParentDirectory(db, "create trace database", "--db");
}

}  // namespace glueprof
