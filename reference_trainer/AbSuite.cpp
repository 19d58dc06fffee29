#include "reference_trainer/AbSuite.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "profiler/core/Error.h"
#include "reference_trainer/RecordingChecks.h"

namespace glueprof {

std::vector<const Toggle*> chooseToggles(const AbRequest& request,
                                         std::vector<SkippedToggle>& skipped) {
    const bool moe = request.config.model.isMoe();
    std::vector<const Toggle*> toggles;
    if (request.all) {
        for (const Toggle& t : toggleRegistry()) {
            if (t.info->calibrationOnly) continue;
            const std::string reason = notApplicableReason(*t.info, moe, request.config.worldSize);
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

std::vector<ToggleRuns> runAbToggles(const AbRequest& request,
                                     const std::vector<const Toggle*>& toggles,
                                     CaptureSession& session, const AbProgress& progress,
                                     RankGroup* group) {
    std::vector<ToggleRuns> comparisons;
    const int count = static_cast<int>(toggles.size());
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) {
        const Toggle& toggle = *toggles[static_cast<std::size_t>(i)];
        if (progress.toggleStarted) progress.toggleStarted(toggle.name(), i, count);
        AbSchedule schedule = request.schedule;
        if (schedule.budgetSeconds > 0.0) {
            const double spent =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            // A budget spent by the toggles before still asks for the fewest steps (1 per block),
            // not for --steps: it stays positive.
            schedule.budgetSeconds =
                std::max(1e-9, (request.schedule.budgetSeconds - spent) / (count - i));
        }
        const AbRuns runs =
            runAbComparison(request.config, toggle, schedule, session, progress.step, group);
        comparisons.push_back(ToggleRuns{toggle.name(), runs});
        if (progress.toggleFinished) progress.toggleFinished(toggle.name());
    }
    return comparisons;
}

AbOutcome runAbSuite(const AbRequest& request, const AbProgress& progress) {
    AbOutcome outcome;
    const std::vector<const Toggle*> toggles = chooseToggles(request, outcome.skipped);
    checkTrainingRequest(request.config, request.db, 2);

    // The arms' losses are compared bit for bit: on CUDA that needs deterministic kernels, set once
    // before any trainer exists (cuBLAS reads its workspace setting at its first handle). CPU
    // kernels here are deterministic already; CI tests bit-identity on CPU, gpu-check on CUDA.
    if (request.config.device == "cuda") makeCudaDeterministic();
    CaptureSession session(request.db, request.config.device, progress.notice);
    outcome.comparisons = runAbToggles(request, toggles, session, progress);
    session.close();
    return outcome;
}

}  // namespace glueprof
