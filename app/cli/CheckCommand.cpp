// glueprof check: the CI regression gate over the A/B runs in a database.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "app/cli/Commands.h"
#include "app/cli/RunSelection.h"
#include "app/report/AtomicFile.h"
#include "app/report/GateReport.h"
#include "app/usecases/GateRequest.h"
#include "profiler/core/Error.h"

namespace glueprof::cli {

namespace {

// A/Bs of another preset than the baseline's are another baseline's to gate: named, so none
// passes unseen.
void printNotChecked(const GateOutcome& outcome) {
    for (const auto& [toggle, pair] : outcome.notChecked) {
        std::cout << fmt::format(
            "not checked: the A/B '{}' (runs {} vs {}) ran preset '{}', the baseline is for '{}'; "
            "check it against a baseline for '{}'\n",
            toggle, pair.baseline.id, pair.optimized.id, pair.optimized.preset, outcome.preset,
            pair.optimized.preset);
    }
}

int check(const GateRequest& request) {
    const GateOutcome outcome = runGate(request);
    if (outcome.updated) {
        std::cout << fmt::format("wrote baseline '{}': {} toggle(s) on preset {}\n",
                                 request.baseline, outcome.written.toggles.size(), outcome.preset);
        for (const auto& [toggle, expect] : outcome.written.toggles) {
            if (!expect.minSpeedup.empty()) continue;
            std::string checked = "that its A/B exists";
            if (!expect.counters.empty()) checked += ", its counters";
            if (expect.lossEqual) checked += ", its losses";
            std::cout << fmt::format(
                "note: '{}' has no speedup floor (its A/B has no 95% interval: too few blocks, "
                "or steps for imported traces; 3 or more give one), so the gate checks only {}\n",
                toggle, checked);
        }
        printNotChecked(outcome);
        return 0;
    }
    std::cout << renderGateTable(outcome.checks);
    printNotChecked(outcome);
    if (!request.junit.empty()) writeFileAtomically(request.junit, renderGateJunit(outcome.checks));
    for (const std::string& l : outcome.losses) std::cout << "capture loss: " << l << "\n";
    if (outcome.lossesFail) {
        std::cout << fmt::format(
            "FAIL: {} capture loss(es) in the compared runs: rerun (see the diagnostics), or pass "
            "--allow-loss to accept them\n",
            outcome.losses.size());
    }
    return outcome.passed() ? static_cast<int>(ExitCode::kOk)
                            : static_cast<int>(ExitCode::kRegression);
}

}  // namespace

void registerCheckCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<GateRequest>();
    CLI::App* command = app.add_subcommand(
        "check",
        "CI gate: fail (exit 3) when the latest A/Bs in a database no longer meet a baseline");
    command->add_option("--db", options->db, "trace database with `glueprof ab` runs")
        ->capture_default_str();
    command->add_option("--baseline", options->baseline, "baseline JSON (assets/baselines/*.json)")
        ->required();
    command->add_option("--junit", options->junit, "also write the checks as JUnit XML here");
    command->add_flag(
        "--allow-loss", options->allowLoss,
        "do not fail when the capture lost records (diagnostics such as cupti_dropped_records)");
    command->add_flag("--allow-missing", options->allowMissing,
                      "do not fail when the database ran a toggle the baseline has no entry for");
    command->add_flag("--update-baseline", options->update,
                      "write the baseline from the database's latest A/Bs instead of checking");
    command->callback([options, &action] { action = [options] { return check(*options); }; });
}

}  // namespace glueprof::cli
