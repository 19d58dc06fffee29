#include "app/report/ImportText.h"

#include <fmt/format.h>

#include <map>

#include "profiler/core/Diagnostics.h"

namespace glueprof {

namespace {

std::string joinCounts(const std::map<std::string, std::int64_t>& counts) {
    std::string out;
    for (const auto& [what, n] : counts)
        out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, what);
    return out.empty() ? "none" : out;
}

std::string stepsText(const StoredImport& stored, const std::string& stepPrefix) {
    if (!stored.trace.stepsFound) {
        return fmt::format("no {}N ranges: the whole trace is one step", stepPrefix);
    }
    return fmt::format("{} step{} ({}N ranges)", stored.steps, stored.steps == 1 ? "" : "s",
                       stepPrefix);
}

}  // namespace

std::string renderImportLine(const StoredImport& stored, const std::string& stepPrefix) {
    const ImportedRun& run = stored.trace;
    // The one step of a trace without step ranges is in the line's steps already.
    std::map<std::string, std::int64_t> derived(run.derived.begin(), run.derived.end());
    derived.erase(diagnosticDetail(DiagnosticId::kDerivedWholeTraceStep, stepPrefix));
    std::int64_t events = 0;
    for (const auto& [kind, n] : run.eventsByKind) events += n;
    std::string rank;
    if (run.rank)
        rank = run.worldSize ? fmt::format(", rank {} of {}", *run.rank, *run.worldSize)
                             : fmt::format(", rank {}", *run.rank);
    return fmt::format(
        "imported run {} from '{}' ({}, {}{}): read {}; stored {} events ({}); {}; skipped: "
        "{}{}\n",
        stored.run, run.source, run.format, run.formatDetail, rank, joinCounts(run.read), events,
        joinCounts(run.eventsByKind), stepsText(stored, stepPrefix), joinCounts(run.skipped),
        derived.empty() ? "" : "; derived: " + joinCounts(derived));
}

std::string renderImportSummary(const ImportOutcome& outcome) {
    std::string out;
    if (outcome.groupedRanks > 1) {
        out += fmt::format(
            "the {} ranks' runs form one data-parallel group (runs from {}): see them side by side "
            "with `glueprof report --db {} --runs {}` or the GUI's Ranks tab\n",
            outcome.groupedRanks, outcome.rankGroup, outcome.db, outcome.rankGroup);
    }
    if (!outcome.abName.empty() && outcome.runs.size() == 2) {
        const RunId a = outcome.runs[0].run;
        const RunId b = outcome.runs[1].run;
        out += fmt::format(
            "A/B '{}': run {} (A) vs run {} (B); see it with `glueprof compare --db {} --runs "
            "{},{}`, gate it with `glueprof check`\n",
            outcome.abName, a, b, outcome.db, a, b);
    }
    return out;
}

}  // namespace glueprof
