// glueprof run: one traced run of the reference trainer with the chosen toggles.
#include <fmt/format.h>
#include <sys/resource.h>

#include <iostream>
#include <memory>

#include "app/cli/Commands.h"
#include "app/cli/Progress.h"
#include "app/cli/RankLauncher.h"
#include "app/cli/TorchCommands.h"
#include "app/cli/TrainerOptions.h"
#include "app/report/CommandJson.h"
#include "app/report/Results.h"
#include "app/report/ResultsText.h"
#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/ToggleCatalog.h"
#include "profiler/core/TraceReader.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/RecordingChecks.h"
#include "reference_trainer/distributed/DistributedRun.h"

namespace glueprof::cli {

namespace {

// Peak resident set of this process (getrusage reports KiB on Linux).
std::int64_t peakResidentBytes() {
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
}

struct RunOptions {
    TrainerOptions trainer;
    std::vector<std::string> toggles;
};

// This process is one rank of a data-parallel run: train, and on rank 0 merge and print.
int runAsRank(const RunOptions& o, const TrainConfig& config,
              const std::vector<const Toggle*>& toggles, const RankEnvironment& environment) {
    const bool leader = environment.rank == 0;
    // Under any launcher: the device, this rank's own memory and the database's directory (the
    // --nproc launcher checked the memory of all its ranks before starting them).
    checkTrainingRequest(config, o.trainer.db, 1);
    RankRunRequest request = o.trainer.rankRequest(environment);
    if (!o.trainer.json) request.progress = terminalProgress("run (rank 0)");
    MergedRanks merged;
    {
        const InterruptionScope interruptible;  // Ctrl-C: the runs end aborted
        merged = runSingleOnRanks(config, toggles, o.trainer.warmup, o.trainer.steps, request);
        endProgressLine();
    }
    if (!leader || merged.runs.empty()) return 0;
    // Rank 0's run brings the other ranks' (Results.h): each analyzed alone, then side by side.
    const Results results =
        buildResults(TraceReader(o.trainer.db), o.trainer.db, {{merged.runs.front()}, {}});
    const RankSet* ranks = results.rankSetOf(0);
    if (o.trainer.json) {
        std::cout << renderRankRunsJson(results, ranks, o.trainer.db, environment.worldSize);
        return 0;
    }
    ProcessStats process;
    process.peakRssBytes = peakResidentBytes();
    std::cout << renderRunSummary(results.runs.front(), o.trainer.db, process);
    if (ranks != nullptr) std::cout << renderRankLines(results, *ranks);
    return 0;
}

int runOnce(const RunOptions& o) {
    TrainConfig config = o.trainer.resolve();
    const std::optional<RankEnvironment> rank = o.trainer.launchedRank();
    o.trainer.applyRank(rank, config);
    std::vector<const Toggle*> toggles;
    for (const std::string& name : o.toggles) toggles.push_back(&resolveToggle(name, config));
    if (rank) return runAsRank(o, config, toggles, *rank);
    if (o.trainer.nproc > 1) {
        // Before any rank starts: N trainers on this machine, and the database's directory.
        checkTrainingRequest(config, o.trainer.db, o.trainer.nproc, o.trainer.nproc);
        return launchRanks(o.trainer.nproc, o.trainer.db);
    }
    checkTrainingRequest(config, o.trainer.db, 1);  // before the database is created
    RunId run = 0;
    {
        const InterruptionScope interruptible;  // Ctrl-C: the run ends aborted
        CaptureSession session(o.trainer.db, config.device, printNotice);
        run = runSingle(config, toggles, o.trainer.warmup, o.trainer.steps, session,
                        terminalProgress("run"));
        endProgressLine();
        session.close();
    }
    ProcessStats process;
    process.peakRssBytes = peakResidentBytes();
    const Results results = buildResults(TraceReader(o.trainer.db), o.trainer.db, {{run}, {}});
    const RunAnalysis& analysis = results.runs.front();
    if (o.trainer.json) {
        std::cout << renderRunJson(analysis, o.trainer.db,
                                   static_cast<double>(process.peakRssBytes) / (1024.0 * 1024.0));
    } else {
        std::cout << renderRunSummary(analysis, o.trainer.db, process);
    }
    return 0;
}

}  // namespace

void registerRunCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<RunOptions>();
    CLI::App* command = app.add_subcommand(kRunDescription.name, kRunDescription.text);
    options->trainer.addTo(*command);
    command->add_option("--opt", options->toggles,
                        "toggle to enable (repeatable): " + toggleNames());
    command->callback([options, &action] { action = [options] { return runOnce(*options); }; });
}

}  // namespace glueprof::cli
