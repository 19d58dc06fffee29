// glueprof ab: an A/B comparison of one or more toggles on the reference trainer.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

#include "analyzers/AbComparison.h"
#include "analyzers/Analysis.h"
#include "analyzers/CopyOverlap.h"
#include "analyzers/SyncPoints.h"
#include "app/cli/Commands.h"
#include "app/cli/Progress.h"
#include "app/cli/TrainerOptions.h"
#include "app/report/AbReport.h"
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

struct AbOptions {
    TrainerOptions trainer;
    std::vector<std::string> toggles;
    bool all = false;
    int repeats = 3;
    std::string report;  // "" = beside the database
    bool aaControl = false;
};

struct SkippedToggle {
    std::string name;
    std::string reason;
};

std::vector<const Toggle*> chosenToggles(const AbOptions& o, const TrainConfig& config,
                                         std::vector<SkippedToggle>& skipped) {
    std::vector<const Toggle*> toggles;
    if (o.all) {
        for (const Toggle& t : toggleRegistry()) {
            std::string reason = notApplicableReason(t, config.model.isMoe());
            if (reason.empty()) {
                toggles.push_back(&t);
            } else {
                skipped.push_back(SkippedToggle{t.name, reason});
            }
        }
        return toggles;
    }
    if (o.toggles.empty()) {
        throw usageError("choose what to compare: --opt NAME (repeatable) or --all; toggles: " +
                         toggleNames());
    }
    for (const std::string& name : o.toggles) {
        toggles.push_back(&resolveToggle(name, config));
    }
    return toggles;
}

std::string defaultReportPath(const std::string& db) {
    std::filesystem::path path(db);
    return (path.parent_path() / (path.stem().string() + "-report.md")).string();
}

// Stores the A/B results in the `metrics` table of the optimized run.
void storeMetrics(TraceWriter& writer, const AbComparison& c) {
    for (const MetricComparison& m : c.metrics) {
        nlohmann::json detail = {{"baseline_run", c.baselineRun},
                                 {"baseline_ms", m.baseline},
                                 {"optimized_ms", m.optimized},
                                 {"ci95", {m.speedupLow, m.speedupHigh}}};
        writer.recordMetric(MetricRecord{c.optimizedRun, "ab." + c.toggle + ".speedup." + m.name,
                                         m.speedup, "x", detail.dump()});
    }
}

int runAb(const AbOptions& o) {
    TrainConfig config = o.trainer.resolve();
    std::vector<SkippedToggle> skipped;
    const std::vector<const Toggle*> toggles = chosenToggles(o, config, skipped);
    checkFitsInMemory(config, 2);
    AbSchedule schedule{o.trainer.warmup, o.trainer.steps, o.repeats, o.aaControl};

    TraceWriter writer(o.trainer.db);
    HostTracer tracer(writer);
    std::vector<AbRuns> runs;
    std::string gpuCapture;
    {
        CaptureScope capture(config, tracer);
        gpuCapture = config.gpuCapture = capture.summary();
        std::cerr << "GPU capture: " << gpuCapture << "\n";
        OpObserver observer(tracer);
        for (const Toggle* toggle : toggles) {
            runs.push_back(
                runAbComparison(config, *toggle, schedule, tracer, terminalProgress(toggle->name)));
            endProgressLine();
        }
    }
    writer.flush();

    AbReport report;
    report.preset = config.preset;
    report.device = config.device;
    report.gpuCapture = gpuCapture;
    report.db = o.trainer.db;
    report.warmup = schedule.warmup;
    report.steps = schedule.steps;
    report.repeats = schedule.repeats;
    for (const SkippedToggle& s : skipped)
        report.skipped.push_back(AbReport::Skipped{s.name, s.reason});
    TraceReader reader(o.trainer.db);
    for (std::size_t i = 0; i < toggles.size(); ++i) {
        TraceModel baseline = reader.loadRun(runs[i].baseline);
        TraceModel optimized = reader.loadRun(runs[i].optimized);
        AbReportEntry entry;
        entry.comparison =
            compareRuns(toggles[i]->name, toggles[i]->primaryMetric, baseline, optimized);
        // The whole analysis of the baseline (the advisor needs it); of the optimized run, what the
        // report shows.
        AnalysisResult baselineAnalysis = analyze(baseline);
        entry.baselineSyncs = std::move(baselineAnalysis.syncPoints);
        entry.baselineOverlap = std::move(baselineAnalysis.copyOverlap);
        entry.baselineFindings = std::move(baselineAnalysis.findings);
        entry.baselineBubbles = std::move(baselineAnalysis.bubbles);
        entry.optimizedSyncs = analyzeSyncPoints(optimized);
        entry.optimizedOverlap = analyzeCopyOverlap(optimized);
        entry.optimizedBubbles = analyzeBubbles(optimized);
        for (const TraceModel* model : {&baseline, &optimized}) {
            entry.diagnostics.insert(entry.diagnostics.end(), model->diagnostics().begin(),
                                     model->diagnostics().end());
        }
        storeMetrics(writer, entry.comparison);
        report.entries.push_back(std::move(entry));
    }
    writer.close();

    report.reportPath = o.report.empty() ? defaultReportPath(o.trainer.db) : o.report;
    writeFileAtomically(report.reportPath, renderAbMarkdown(report));
    std::cout << (o.trainer.json ? renderAbJson(report) + "\n" : renderAbTable(report));
    return 0;
}

}  // namespace

void registerAbCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<AbOptions>();
    CLI::App* command = app.add_subcommand(
        "ab", "A/B-compare toggles on the reference trainer (interleaved blocks, same batches)");
    options->trainer.addTo(*command);
    command->add_option("--opt", options->toggles,
                        "toggle to compare (repeatable): " + toggleNames());
    command->add_flag("--all", options->all, "compare every available toggle");
    command->add_option("--repeats", options->repeats, "interleaved blocks per arm")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    command->add_flag("--aa", options->aaControl,
                      "A/A control: run the optimized arm without the toggle (the noise floor; "
                      "`check` fails on it)");
    command->add_option("--report", options->report,
                        "Markdown report path (default: beside the database, NAME-report.md)");
    command->callback([options, &action] { action = [options] { return runAb(*options); }; });
}

}  // namespace glueprof::cli
