// glueprof run: one traced run of the reference trainer with the chosen toggles.
#include <fmt/format.h>
#include <sys/resource.h>

#include <iostream>
#include <memory>

#include "app/cli/Commands.h"
#include "app/cli/Progress.h"
#include "app/cli/TrainerOptions.h"
#include "app/report/Results.h"
#include "app/report/ResultsJson.h"
#include "app/report/ResultsText.h"
#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/ToggleCatalog.h"
#include "profiler/core/TraceReader.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/RecordingChecks.h"

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

int runOnce(const RunOptions& o) {
    const TrainConfig config = o.trainer.resolve();
    std::vector<const Toggle*> toggles;
    for (const std::string& name : o.toggles) toggles.push_back(&resolveToggle(name, config));
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
        nlohmann::json j = toJson(analysis);
        j["db"] = o.trainer.db;
        j["peak_rss_mib"] = static_cast<double>(process.peakRssBytes) / (1024.0 * 1024.0);
        std::cout << jsonText(j) << "\n";
    } else {
        std::cout << renderRunSummary(analysis, o.trainer.db, process);
    }
    return 0;
}

}  // namespace

void registerRunCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<RunOptions>();
    CLI::App* command = app.add_subcommand("run", "one traced run of the reference trainer");
    options->trainer.addTo(*command);
    command->add_option("--opt", options->toggles,
                        "toggle to enable (repeatable): " + toggleNames());
    command->callback([options, &action] { action = [options] { return runOnce(*options); }; });
}

}  // namespace glueprof::cli
