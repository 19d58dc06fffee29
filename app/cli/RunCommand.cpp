// glueprof run: one traced run of the reference trainer with the chosen toggles.
#include <fmt/format.h>
#include <sys/resource.h>

#include <iostream>
#include <memory>

#include "analyzers/Analysis.h"
#include "app/cli/Commands.h"
#include "app/cli/Progress.h"
#include "app/cli/TrainerOptions.h"
#include "app/report/RunSummary.h"
#include "optimizations/ToggleRegistry.h"
#include "profiler/core/Error.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/host/HostTracer.h"
#include "profiler/torch_ops/OpObserver.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/CaptureScope.h"
#include "reference_trainer/Presets.h"

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
    TrainConfig config = o.trainer.resolve();
    std::vector<const Toggle*> toggles;
    for (const std::string& name : o.toggles) {
        toggles.push_back(&resolveToggle(name, config));
    }
    checkFitsInMemory(config, 1);  // before the database is created
    TraceWriter writer(o.trainer.db);
    HostTracer tracer(writer);
    RunId run = 0;
    {
        CaptureScope capture(config, tracer);
        config.gpuCapture = capture.summary();
        std::cerr << "GPU capture: " << config.gpuCapture << "\n";
        OpObserver observer(tracer);
        run = runSingle(config, toggles, o.trainer.warmup, o.trainer.steps, tracer,
                        terminalProgress("run"));
        endProgressLine();
    }
    ProcessStats process;
    process.peakRssBytes = peakResidentBytes();
    writer.recordMetric(MetricRecord{run, "process.peak_rss",
                                     static_cast<double>(process.peakRssBytes), "bytes", "{}"});
    writer.close();
    TraceModel model = TraceReader(o.trainer.db).loadRun(run);
    AnalysisResult analysis = analyze(model);
    std::cout << (o.trainer.json ? renderRunSummaryJson(model.run(), analysis, o.trainer.db,
                                                        process, model.diagnostics()) +
                                       "\n"
                                 : renderRunSummary(model.run(), analysis, o.trainer.db, process,
                                                    model.diagnostics()));
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
