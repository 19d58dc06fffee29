// glueprof compare: two runs side by side — any two, typically an imported BEFORE and AFTER (or
// the arms of an A/B): per-step medians with intervals, which ops and kernels were added, removed,
// run more or less often (HTA's TraceDiff), and the sync points before and after.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "analyzers/TraceDiff.h"
#include "app/cli/Commands.h"
#include "app/cli/RunSelection.h"
#include "app/report/Results.h"
#include "app/report/ResultsJson.h"
#include "app/report/ResultsText.h"
#include "profiler/core/Error.h"
#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

namespace {

struct CompareOptions {
    std::string db = "runs.sqlite";
    std::string runs;
    std::optional<std::int32_t> step;
    std::size_t top = 12;
    bool json = false;
};

std::string diffSection(const TraceDiffResult& diff, std::size_t top) {
    std::string out =
        diff.step ? fmt::format("\nwhat changed in step {} (per step: count, ms)\n", *diff.step)
                  : fmt::format(
                        "\nwhat changed, per step (mean over {} and {} measured steps: "
                        "count, ms)\n",
                        diff.referenceSteps, diff.comparedSteps);
    for (DiffSide side : {DiffSide::kHost, DiffSide::kDevice}) {
        for (NameChange change : {NameChange::kAdded, NameChange::kRemoved, NameChange::kMore,
                                  NameChange::kFewer, NameChange::kUnchanged}) {
            const std::vector<const NameDiff*> names = diff.of(change, side);
            if (names.empty()) continue;
            out += fmt::format("  {} {} ({}):\n", side == DiffSide::kHost ? "host" : "device",
                               toString(change), names.size());
            for (std::size_t i = 0; i < names.size() && i < top; ++i) {
                const NameDiff& d = *names[i];
                out += fmt::format("    {:<60.60} {:>8.2f} -> {:<8.2f} {:>10.3f} -> {:.3f} ms\n",
                                   d.name, d.referenceCount, d.comparedCount, d.referenceMs,
                                   d.comparedMs);
            }
            if (names.size() > top) out += fmt::format("    ... {} more\n", names.size() - top);
        }
    }
    return out;
}

std::string syncSection(const RunAnalysis& a, const RunAnalysis& b, std::size_t top) {
    const SyncPointsResult& x = a.analysis.syncPoints;
    const SyncPointsResult& y = b.analysis.syncPoints;
    std::string out = "\nsync points (median per step)\n";
    if (x.hostSyncsCaptured || y.hostSyncsCaptured) {
        out += fmt::format("  host-blocking syncs      {:>8.1f} -> {:.1f}\n",
                           x.medianHostSyncsPerStep, y.medianHostSyncsPerStep);
        out += fmt::format("  time blocked (ms)        {:>8.3f} -> {:.3f}\n", x.medianSyncBlockedMs,
                           y.medianSyncBlockedMs);
    }
    out += fmt::format("  ops that sync            {:>8.1f} -> {:.1f}\n", x.medianPerStep,
                       y.medianPerStep);
    for (const auto& [label, result] : {std::pair{"before", &x}, std::pair{"after", &y}}) {
        const auto& groups = result->hostSyncsCaptured ? result->hostSyncsByOp : result->byOp;
        if (groups.empty()) continue;
        out += fmt::format("  {} (by op, all measured steps):\n", label);
        for (std::size_t i = 0; i < groups.size() && i < top; ++i) {
            out += fmt::format("    {:<50.50} {:>6} x {:>10.3f} ms\n", groups[i].key,
                               groups[i].count, groups[i].totalMs);
        }
    }
    return out;
}

nlohmann::json diffJson(const TraceDiffResult& diff) {
    nlohmann::json names = nlohmann::json::array();
    for (const NameDiff& d : diff.names) {
        names.push_back({{"name", d.name},
                         {"side", toString(d.side)},
                         {"change", toString(d.change)},
                         {"reference_count", d.referenceCount},
                         {"compared_count", d.comparedCount},
                         {"reference_ms", d.referenceMs},
                         {"compared_ms", d.comparedMs}});
    }
    nlohmann::json j = {{"reference_steps", diff.referenceSteps},
                        {"compared_steps", diff.comparedSteps},
                        {"names", names}};
    j["step"] = diff.step ? nlohmann::json(*diff.step) : nlohmann::json();
    return j;
}

int compare(const CompareOptions& o) {
    const std::vector<RunId> ids = parseRunIds(o.runs);
    if (ids.size() != 2 || ids[0] == ids[1])
        throw usageError("compare needs two different runs: --runs A,B (see glueprof list)");
    TraceReader reader(o.db);
    const TraceModel reference = reader.loadRun(ids[0]);
    const TraceModel compared = reader.loadRun(ids[1]);
    for (const TraceModel* run : {&reference, &compared}) {
        if (run->measuredSteps().empty()) {
            throw inputError(fmt::format(
                "run {} ({}) has no measured steps: nothing to compare; pick runs with steps "
                "(glueprof list)",
                run->run().id, run->run().displayStatus()));
        }
    }
    const TraceDiffResult diff = diffTraces(reference, compared, o.step);
    const Results results = buildResults({&reference, &compared}, o.db);
    if (o.json) {
        nlohmann::json j = toJson(results);
        j["diff"] = diffJson(diff);
        std::cout << jsonText(j) << "\n";
        return 0;
    }
    std::cout << renderComparisonTable(results);
    std::cout << diffSection(diff, o.top);
    std::cout << syncSection(results.runs[0], results.runs[1], o.top);
    return 0;
}

}  // namespace

void registerCompareCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<CompareOptions>();
    CLI::App* command = app.add_subcommand(
        "compare",
        "two runs side by side: step medians with intervals, ops and kernels added/removed/more/"
        "fewer, sync points before and after");
    command->add_option("--db", options->db, "trace database")->capture_default_str();
    command->add_option("--runs", options->runs, "REFERENCE,COMPARED run ids (see glueprof list)")
        ->required();
    command->add_option("--step", options->step,
                        "diff this step of each run (e.g. 1010 for ProfilerStep#1010) instead of "
                        "the mean per measured step");
    command->add_option("--top", options->top, "names listed per group")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
    command->add_flag("--json", options->json, "print JSON");
    command->callback([options, &action] { action = [options] { return compare(*options); }; });
}

}  // namespace glueprof::cli
