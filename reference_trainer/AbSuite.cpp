#include "reference_trainer/AbSuite.h"

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

std::vector<const Toggle*> chooseToggles(const AbRequest& request,
                                         std::vector<SkippedToggle>& skipped) {
    const bool moe = request.config.model.isMoe();
    std::vector<const Toggle*> toggles;
    if (request.all) {
        for (const Toggle& t : toggleRegistry()) {
            const std::string reason = notApplicableReason(*t.info, moe);
            if (reason.empty()) {
                toggles.push_back(&t);
            } else {
                skipped.push_back(SkippedToggle{t.name(), reason});
            }
        }
        return toggles;
    }
    if (request.toggles.empty()) {
        throw usageError("choose what to compare: --opt NAME (repeatable) or --all; toggles: " +
                         toggleNames());
    }
    for (const std::string& name : request.toggles) {
        toggles.push_back(&resolveToggle(name, request.config));
    }
    return toggles;
}

const Toggle& resolveToggle(const std::string& name, const TrainConfig& config) {
    const Toggle* toggle = findToggle(name);
    if (toggle == nullptr) {
        throw usageError(fmt::format("unknown toggle '{}': choose from {}", name, toggleNames()));
    }
    const std::string reason = notApplicableReason(*toggle->info, config.model.isMoe());
    if (!reason.empty()) {
        throw usageError(fmt::format("toggle '{}' does not apply to preset '{}': {}", name,
                                     config.preset, reason));
    }
    return *toggle;
}

void checkTrainingRequest(const TrainConfig& config, const std::string& db, int trainers) {
    checkDevice(config.device);
    checkFitsInMemory(config, trainers);
    requireParentDirectory(db, "create trace database", "--db");
}

AbOutcome runAbSuite(const AbRequest& request, const AbProgress& progress) {
    AbOutcome outcome;
    const std::vector<const Toggle*> toggles = chooseToggles(request, outcome.skipped);
    checkTrainingRequest(request.config, request.db, 2);

    CaptureSession session(request.db, request.config.device);
    outcome.gpuCapture = session.captureSummary();
    if (progress.notice) {
        if (!session.writer().upgradeNotice().empty()) {
            progress.notice(session.writer().upgradeNotice());
        }
        progress.notice("GPU capture: " + outcome.gpuCapture);
    }
    const int count = static_cast<int>(toggles.size());
    for (int i = 0; i < count; ++i) {
        const Toggle& toggle = *toggles[static_cast<std::size_t>(i)];
        if (progress.toggleStarted) progress.toggleStarted(toggle.name(), i, count);
        const AbRuns runs =
            runAbComparison(request.config, toggle, request.schedule, session, progress.step);
        outcome.comparisons.push_back(ToggleRuns{toggle.name(), runs});
        if (progress.toggleFinished) progress.toggleFinished(toggle.name());
    }
    session.close();
    return outcome;
}

}  // namespace glueprof
