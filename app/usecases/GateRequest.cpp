#include "app/usecases/GateRequest.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "analyzers/AbComparison.h"
#include "app/report/AtomicFile.h"
#include "app/report/GateReport.h"
#include "profiler/core/Diagnostics.h"
#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"
#include "profiler/core/TraceReader.h"

namespace glueprof {

namespace {

// The pairs of `preset`, each compared (both arms loaded once).
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

// Runs of the compared pairs whose capture lost something.
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

std::map<std::string, AbPair> ofAnotherPreset(const std::map<std::string, AbPair>& pairs,
                                              const std::string& preset) {
    std::map<std::string, AbPair> other;
    for (const auto& [toggle, pair] : pairs) {
        if (pair.optimized.preset != preset) other.emplace(toggle, pair);
    }
    return other;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw inputError(fmt::format("cannot read baseline '{}': check the path", path));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

GateOutcome runGate(const GateRequest& request) {
    // The outputs are checked before any work: never the database itself.
    if (!request.junit.empty()) requireOutputBesideDatabase(request.junit, request.db, "--junit");
    if (request.update) requireOutputBesideDatabase(request.baseline, request.db, "--baseline");
    TraceReader reader(request.db);
    const std::map<std::string, AbPair> pairs = latestAbPairs(reader.listRuns());
    if (pairs.empty()) {
        throw inputError(fmt::format(
            "'{}' holds no complete A/B runs: record them with `glueprof ab`", request.db));
    }
    GateOutcome out;
    if (request.update) {
        const AbPair& latest = std::prev(pairs.end())->second;
        out.preset = latest.optimized.preset;
        out.written = baselineFrom(out.preset, latest.optimized.device,
                                   compareAll(reader, pairs, out.preset));
        writeFileAtomically(request.baseline, renderGateBaseline(out.written));
        out.updated = true;
        out.notChecked = ofAnotherPreset(pairs, out.preset);
        return out;
    }
    const GateBaseline baseline = parseGateBaseline(slurp(request.baseline), request.baseline);
    out.preset = baseline.preset;
    for (const auto& [toggle, pair] : pairs) {
        if (baseline.toggles.count(toggle) != 0 && pair.optimized.preset != baseline.preset) {
            throw inputError(fmt::format(
                "the latest A/B of '{}' in '{}' ran preset '{}' but the baseline is for '{}': run "
                "`glueprof ab --preset {}` or check against a baseline for '{}'",
                toggle, request.db, pair.optimized.preset, baseline.preset, baseline.preset,
                pair.optimized.preset));
        }
    }
    out.checks = evaluateGate(baseline, compareAll(reader, pairs, baseline.preset));
    // A toggle the database ran that the baseline does not cover would pass unseen.
    for (const auto& [toggle, pair] : pairs) {
        if (pair.optimized.preset != baseline.preset || baseline.toggles.count(toggle) != 0)
            continue;
        out.checks.push_back(
            GateCheck{toggle, "in the baseline", "an entry",
                      request.allowMissing
                          ? "missing (allowed by --allow-missing)"
                          : "missing: add it with --update-baseline, or pass --allow-missing",
                      request.allowMissing});
    }
    out.notChecked = ofAnotherPreset(pairs, baseline.preset);
    // A capture that lost records measured something else than what ran: the gate cannot vouch for
    // it.
    out.losses = lossesIn(reader, pairs, baseline.preset);
    out.lossesFail = !out.losses.empty() && !request.allowLoss;
    return out;
}

}  // namespace glueprof
