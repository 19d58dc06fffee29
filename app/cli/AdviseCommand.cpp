// glueprof advise: the advisor's findings on one recorded run (a baseline, usually).
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "analyzers/Analysis.h"
#include "app/cli/Commands.h"
#include "app/report/CommandJson.h"
#include "app/report/Findings.h"
#include "app/usecases/StoredRuns.h"
#include "profiler/core/Error.h"
#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

namespace {

struct AdviseOptions {
    std::string db = "runs.sqlite";
    RunId run = 0;  // 0 = the latest run
    bool json = false;
    bool rules = false;  // list the rules instead of advising on a run
};

int adviseRun(const AdviseOptions& o) {
    if (o.rules) {
        if (o.json) {
            std::cout << renderAdvisorRulesJson();
        } else {
            std::cout << renderAdvisorRulesText();
        }
        return 0;
    }
    const AnalyzedRun analyzed = analyzeStoredRun(RunRequest{o.db, o.run});
    const TraceModel& model = analyzed.model;
    const AnalysisResult& analysis = analyzed.analysis;
    const RunId run = model.run().id;
    if (o.json) {
        std::cout << renderAdviseJson(o.db, model.run(), analysis.findings);
    } else {
        std::cout << fmt::format("advisor, run {} ({}, preset {}):\n", run, model.run().label,
                                 model.run().preset);
        if (!analyzed.stepsFound)
            std::cout << "  (the trace has no step ranges: it is one step, so \"per step\" below "
                         "means the whole trace; call prof.step() once per iteration, or import "
                         "with --steps PREFIX)\n";
        std::cout << renderStepCausesText(analysis.attribution, analysis.hostAttribution);
        std::cout << renderFindingsText(analysis.findings,
                                        analysis.attribution.coverage.complete());
    }
    return 0;
}

}  // namespace

void registerAdviseCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<AdviseOptions>();
    CLI::App* command = app.add_subcommand(
        "advise",
        "which toggle would help a recorded run, and how much time per step it could save");
    command->add_option("--db", options->db, "trace database")->capture_default_str();
    command->add_option("--run", options->run, "run id (default: the latest run)");
    command->add_flag("--json", options->json, "print JSON");
    command->add_flag("--rules", options->rules,
                      "list the advisor's rules (scope, toggle, thresholds, what each looks for) "
                      "instead of advising on a run");
    command->callback([options, &action] { action = [options] { return adviseRun(*options); }; });
}

}  // namespace glueprof::cli
