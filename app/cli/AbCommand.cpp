// glueprof ab: an A/B comparison of one or more toggles on the reference trainer. A thin caller:
// the suite runs in reference_trainer (runAbSuite), the results model is built from what it stored.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include "app/cli/AbExec.h"
#include "app/cli/AbResultsOutput.h"
#include "app/cli/Commands.h"
#include "app/cli/NumberChecks.h"
#include "app/cli/Progress.h"
#include "app/cli/RankLauncher.h"
#include "app/cli/TorchCommands.h"
#include "app/cli/TrainerOptions.h"
#include "app/report/Results.h"
#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/OutputPath.h"
#include "profiler/core/ToggleCatalog.h"
#include "profiler/core/TraceReader.h"
#include "reference_trainer/AbSuite.h"
#include "reference_trainer/RecordingChecks.h"
#include "reference_trainer/ScheduleBounds.h"
#include "reference_trainer/distributed/DistributedRun.h"

namespace glueprof::cli {

namespace {

struct AbOptions {
    TrainerOptions trainer;
    std::vector<std::string> toggles;
    bool all = false;
    int repeats = 3;
    double budgetSeconds = 0.0;
    std::string report;  // "" = beside the database
    bool aaControl = false;
    AbExecOptions exec;  // ab --exec: the user's program instead of the trainer
    CLI::App* command = nullptr;
};

std::string defaultReportPath(const std::string& db) {
    std::filesystem::path path(db);
    return (path.parent_path() / (path.stem().string() + "-report.md")).string();
}

AbProgress terminalAbProgress() {
    auto current = std::make_shared<ProgressCallback>();
    AbProgress progress;
    progress.notice = printNotice;
    auto suiteStart =
        std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
    progress.toggleStarted = [current, suiteStart](const std::string& toggle, int index,
                                                   int count) {
        *current = terminalProgress(fmt::format("{} ({}/{})", toggle, index + 1, count), index,
                                    count, *suiteStart);
    };
    progress.step = [current](const StepProgress& p) {
        if (*current) (*current)(p);
    };
    progress.toggleFinished = [](const std::string&) { endProgressLine(); };
    return progress;
}

int runAb(const AbOptions& o) {
    if (o.exec.wanted(*o.command)) {
        return runAbExec(o.exec, o.trainer, o.repeats,
                         o.report.empty() ? defaultReportPath(o.trainer.db) : o.report, *o.command);
    }
    const std::optional<RankEnvironment> rank = o.trainer.launchedRank();
    AbRequest request;
    request.config = o.trainer.resolve();
    o.trainer.applyRank(rank, request.config);
    request.toggles = o.toggles;
    request.all = o.all;
    request.schedule =
        AbSchedule{o.trainer.warmup, o.trainer.steps, o.repeats, o.aaControl, o.budgetSeconds};
    if (o.all && !o.toggles.empty()) {
        throw usageError("--all compares every toggle: drop --opt, or drop --all to compare those");
    }
    for (std::size_t i = 0; i < o.toggles.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (o.toggles[i] == o.toggles[j])
                throw usageError("--opt " + o.toggles[i] +
                                 " is given twice: give each toggle once");
        }
    }
    if (o.budgetSeconds > 0.0 && o.trainer.warmup < 1) {
        throw usageError("--budget measures the step time in the warm-up: use --warmup 1 or more");
    }
    request.db = o.trainer.db;
    const std::string reportPath = o.report.empty() ? defaultReportPath(o.trainer.db) : o.report;
    // Before the A/B runs: the database's directory first (the default report lives beside it).
    requireParentDirectory(o.trainer.db, "create trace database", "--db");
    requireParentDirectory(reportPath, "write report", "--report");
    requireOutputBesideDatabase(reportPath, o.trainer.db, "--report");
    if (!rank && o.trainer.nproc > 1) {
        // Before any rank starts: the toggles, 2 trainers per rank on this machine, the directory.
        std::vector<SkippedToggle> skipped;
        chooseToggles(request, skipped);
        checkTrainingRequest(request.config, o.trainer.db, 2 * o.trainer.nproc, o.trainer.nproc);
        return launchRanks(o.trainer.nproc, o.trainer.db);
    }
    AbOutcome outcome;
    {
        const InterruptionScope interruptible;  // Ctrl-C: the arms in progress end aborted
        if (rank) {
            outcome = runAbSuiteOnRanks(request, o.trainer.rankRequest(*rank),
                                        rank->rank == 0 ? terminalAbProgress() : AbProgress{});
        } else {
            outcome = runAbSuite(request, terminalAbProgress());
        }
    }
    if (rank && rank->rank != 0) return 0;  // rank 0 shows what every rank recorded

    ResultsSelection selection;
    for (const ToggleRuns& t : outcome.comparisons) {
        selection.pairs.emplace_back(t.runs.baseline, t.runs.optimized);
    }
    Results results = buildResults(TraceReader(o.trainer.db), o.trainer.db, selection);
    for (const SkippedToggle& s : outcome.skipped) {
        results.skipped.push_back(SkippedComparison{s.toggle, s.reason});
    }
    writeReportAndShowVerdicts(results, reportPath, o.trainer.json);
    return 0;
}

}  // namespace

void registerAbCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<AbOptions>();
    CLI::App* command = app.add_subcommand(kAbDescription.name, kAbDescription.text);
    options->trainer.addTo(*command);
    command->add_option("--opt", options->toggles,
                        "toggle to compare (repeatable): " + toggleNames());
    command->add_flag("--all", options->all, "compare every available toggle");
    command->add_option("--repeats", options->repeats, "interleaved blocks per arm")
        ->capture_default_str()
        ->check(CLI::Range(kRepeatsBound.min, kRepeatsBound.max));
    command
        ->add_option("--budget", options->budgetSeconds,
                     "seconds the whole A/B may take: each toggle's measured steps per block are "
                     "chosen from its warm-up step time (at most --steps, at least 1)")
        ->check(finitePositive("a positive number of seconds"));
    command->add_flag("--aa", options->aaControl,
                      "A/A control: run the optimized arm without the toggle (the noise floor; "
                      "`check` fails on it)");
    command->add_option("--report", options->report,
                        "Markdown report path (default: beside the database, NAME-report.md)");
    options->exec.addTo(*command);
    options->command = command;
    command->callback([options, &action] { action = [options] { return runAb(*options); }; });
}

}  // namespace glueprof::cli
