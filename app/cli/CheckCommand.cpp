// glueprof check: the CI regression gate over the A/B runs in a database.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "analyzers/AbComparison.h"
#include "analyzers/RegressionGate.h"
#include "app/cli/Commands.h"
#include "app/cli/RunSelection.h"
#include "app/report/AbPairs.h"
#include "app/report/AtomicFile.h"
#include "app/report/GateReport.h"
#include "app/report/Results.h"
#include "profiler/core/Diagnostics.h"
#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"
#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

namespace {

struct CheckOptions {
    std::string db = "runs.sqlite";
    std::string baseline;
    std::string junit;
    bool update = false;
    bool allowLoss = false;
    bool allowMissing = false;
};

// Runs of the compared pairs whose capture lost something (a diagnostic of severity kDataLoss in
// the table of diagnostics, Diagnostics.h): "run N (label): name = value".
std::vector<std::string> lossesIn(const TraceReader& reader,
                                  const std::map<std::string, AbPair>& pairs,
                                  const std::string& preset) {
    std::vector<std::string> losses;
    for (const auto& [toggle, pair] : pairs) {
        if (pair.optimized.preset != preset) continue;
        for (const RunSummary* run : {&pair.baseline, &pair.optimized}) {
            for (const Diagnostic& d : reader.loadDiagnostics(run->id)) {
                if (isLoss(d.name))
                    losses.push_back(
                        fmt::format("run {} ({}): {} = {}", run->id, run->label, d.name, d.value));
            }
        }
    }
    return losses;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw inputError(fmt::format("cannot read baseline '{}': check the path", path));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::map<std::string, AbComparison> compareAll(const TraceReader& reader,
                                               const std::map<std::string, AbPair>& pairs,
                                               const std::string& preset) {
    std::map<std::string, AbComparison> comparisons;
    for (const auto& [toggle, pair] : pairs) {
        if (pair.optimized.preset != preset) continue;
        comparisons[toggle] =
            compareArms(reader.loadRun(pair.baseline.id), reader.loadRun(pair.optimized.id));
    }
    return comparisons;
}

// A/Bs of another preset than the baseline's are another baseline's to gate: named, so none
// passes unseen.
void printNotChecked(const std::map<std::string, AbPair>& pairs, const std::string& preset) {
    for (const auto& [toggle, pair] : pairs) {
        if (pair.optimized.preset == preset) continue;
        std::cout << fmt::format(
            "not checked: the A/B '{}' (runs {} vs {}) ran preset '{}', the baseline is for '{}'; "
            "check it against a baseline for '{}'\n",
            toggle, pair.baseline.id, pair.optimized.id, pair.optimized.preset, preset,
            pair.optimized.preset);
    }
}

int check(const CheckOptions& o) {
    // The outputs are checked before any work: never the database itself.
    if (!o.junit.empty()) requireOutputBesideDatabase(o.junit, o.db, "--junit");
    if (o.update) requireOutputBesideDatabase(o.baseline, o.db, "--baseline");
    TraceReader reader(o.db);
    const std::vector<RunSummary> runs = reader.listRuns();
    const std::map<std::string, AbPair> pairs = latestAbPairs(runs);
    if (pairs.empty()) {
        throw inputError(
            fmt::format("'{}' holds no complete A/B runs: record them with `glueprof ab`", o.db));
    }
    if (o.update) {
        const std::string preset = std::prev(pairs.end())->second.optimized.preset;
        GateBaseline baseline =
            baselineFrom(preset, std::prev(pairs.end())->second.optimized.device,
                         compareAll(reader, pairs, preset));
        writeFileAtomically(o.baseline, renderGateBaseline(baseline));
        std::cout << fmt::format("wrote baseline '{}': {} toggle(s) on preset {}\n", o.baseline,
                                 baseline.toggles.size(), preset);
        for (const auto& [toggle, expect] : baseline.toggles) {
            if (!expect.minSpeedup.empty()) continue;
            std::string checked = "that its A/B exists";
            if (!expect.counters.empty()) checked += ", its counters";
            if (expect.lossEqual) checked += ", its losses";
            std::cout << fmt::format(
                "note: '{}' has no speedup floor (its A/B has no 95% interval: too few blocks, "
                "or steps for imported traces; 3 or more give one), so the gate checks only {}\n",
                toggle, checked);
        }
        printNotChecked(pairs, preset);
        return 0;
    }
    const GateBaseline baseline = parseGateBaseline(slurp(o.baseline), o.baseline);
    for (const auto& [toggle, pair] : pairs) {
        if (baseline.toggles.count(toggle) != 0 && pair.optimized.preset != baseline.preset) {
            throw inputError(fmt::format(
                "the latest A/B of '{}' in '{}' ran preset '{}' but the baseline is for '{}': run "
                "`glueprof ab --preset {}` or check against a baseline for '{}'",
                toggle, o.db, pair.optimized.preset, baseline.preset, baseline.preset,
                pair.optimized.preset));
        }
    }
    std::vector<GateCheck> checks =
        evaluateGate(baseline, compareAll(reader, pairs, baseline.preset));
    // A toggle the database ran that the baseline does not cover would pass unseen.
    for (const auto& [toggle, pair] : pairs) {
        if (pair.optimized.preset != baseline.preset || baseline.toggles.count(toggle) != 0)
            continue;
        checks.push_back(GateCheck{
            toggle, "in the baseline", "an entry",
            o.allowMissing ? "missing (allowed by --allow-missing)"
                           : "missing: add it with --update-baseline, or pass --allow-missing",
            o.allowMissing});
    }
    std::cout << renderGateTable(checks);
    printNotChecked(pairs, baseline.preset);
    if (!o.junit.empty()) writeFileAtomically(o.junit, renderGateJunit(checks));
    // A capture that lost records measured something else than what ran: the gate cannot vouch for
    // it.
    const std::vector<std::string> losses = lossesIn(reader, pairs, baseline.preset);
    for (const std::string& l : losses) std::cout << "capture loss: " << l << "\n";
    if (!losses.empty() && !o.allowLoss) {
        std::cout << fmt::format(
            "FAIL: {} capture loss(es) in the compared runs: rerun (see the diagnostics), or pass "
            "--allow-loss to accept them\n",
            losses.size());
        return static_cast<int>(ExitCode::kRegression);
    }
    return allPassed(checks) ? static_cast<int>(ExitCode::kOk)
                             : static_cast<int>(ExitCode::kRegression);
}

}  // namespace

void registerCheckCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<CheckOptions>();
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
