// glueprof compare: two runs side by side — any two, typically an imported BEFORE and AFTER (or
// the arms of an A/B): per-step medians with intervals, which ops and kernels were added, removed,
// run more or less often (HTA's TraceDiff), and the sync points before and after.
#include <iostream>
#include <memory>
#include <optional>

#include "app/cli/Commands.h"
#include "app/cli/RunSelection.h"
#include "app/report/ResultsJson.h"
#include "app/report/ResultsText.h"
#include "app/usecases/CompareRequest.h"
#include "profiler/core/Error.h"

namespace glueprof::cli {

namespace {

struct CompareOptions {
    std::string db = "runs.sqlite";
    std::string runs;
    std::optional<std::int32_t> step;
    std::size_t top = 12;
    bool json = false;
};

int compare(const CompareOptions& o) {
    const std::vector<RunId> ids = parseRunIds(o.runs);
    if (ids.size() != 2)  // two different ones: parseRunIds
        throw usageError("compare needs two different runs: --runs A,B (see glueprof list)");
    const CompareResults compared = runCompare({o.db, ids[0], ids[1], o.step});
    std::cout << (o.json ? jsonText(toJson(compared)) + "\n" : renderCompareText(compared, o.top));
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
