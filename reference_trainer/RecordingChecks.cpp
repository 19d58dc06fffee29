#include "reference_trainer/RecordingChecks.h"

#include <torch/torch.h>

#include <fmt/format.h>

#include <algorithm>

#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"
#include "profiler/torch_ops/CudaDevice.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

namespace {

// Refuses a device this build or machine cannot train on, before the database exists: on cuda,
// GPUs 0 .. `gpus` - 1 must exist (one per rank of this machine).
void checkDevice(const std::string& device, int gpus) {
    if (device == "cpu") return;
    if (device != "cuda") {
        throw usageError(fmt::format("unknown device '{}': choose cpu or cuda", device));
    }
    std::string why;
    if (!cudaDeviceAvailable(gpus - 1, why)) throw inputError("--device cuda: " + why);
}

}  // namespace

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

void checkTrainingRequest(const TrainConfig& config, const std::string& db, int trainers,
                          int localRanks) {
    checkDevice(config.device, std::max(config.cudaDevice + 1, localRanks));
    if (std::max(config.worldSize, localRanks) > 1) {
        const std::string why = RankGroup::whyCannotJoin(config.device);
        if (!why.empty()) throw inputError(why);
    }
    checkFitsInMemory(config, trainers);
    requireParentDirectory(db, "create trace database", "--db");
}

}  // namespace glueprof
