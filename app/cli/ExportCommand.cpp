// glueprof export: one run as a Chrome/Perfetto trace or as CSV.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/cli/Commands.h"
#include "app/report/AtomicFile.h"
#include "app/report/ChromeTrace.h"
#include "app/report/CsvExport.h"
#include "app/usecases/StoredRuns.h"
#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"

namespace glueprof::cli {

namespace {

struct ExportOptions {
    std::string db = "runs.sqlite";
    RunId run = 0;  // 0 = the latest run
    std::string format = "chrome";
    std::string out;
};

std::string stepsPath(const std::string& out) {
    std::filesystem::path p(out);
    return (p.parent_path() / (p.stem().string() + "-steps" + p.extension().string())).string();
}

int exportRun(const ExportOptions& o) {
    requireOutputBesideDatabase(o.out, o.db, "--out");  // before any work
    if (o.format == "csv") {  // the second file too, before the first is written
        requireOutputBesideDatabase(stepsPath(o.out), o.db, "--out");
        requireReplaceableOutput(stepsPath(o.out));
    }
    if (o.format == "chrome") {
        const TraceModel model = loadStoredRun(RunRequest{o.db, o.run});
        writeFileAtomically(o.out, [&](std::ostream& file) { writeChromeTrace(model, file); });
        std::cout << fmt::format(
            "wrote {} ({} events of run {}): open it in ui.perfetto.dev or chrome://tracing\n",
            o.out, model.eventCount(), model.run().id);
    } else {
        const AnalyzedRun analyzed = analyzeStoredRun(RunRequest{o.db, o.run});
        const TraceModel& model = analyzed.model;
        writeFileAtomically(o.out, [&](std::ostream& file) { writeEventsCsv(model, file); });
        writeFileAtomically(stepsPath(o.out), [&](std::ostream& file) {
            writeStepsCsv(model, analyzed.analysis, file);
        });
        std::cout << fmt::format("wrote {} ({} events) and {} (per-step metrics) of run {}\n",
                                 o.out, model.eventCount(), stepsPath(o.out), model.run().id);
    }
    return 0;
}

}  // namespace

void registerExportCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<ExportOptions>();
    CLI::App* command =
        app.add_subcommand("export", "export one run as a Chrome/Perfetto trace or as CSV");
    command->add_option("--db", options->db, "trace database")->capture_default_str();
    command->add_option("--run", options->run, "run id (default: the latest run)");
    command
        ->add_option("--format", options->format,
                     "chrome (trace JSON) or csv (events, and per-step metrics "
                     "in OUT-steps.csv)")
        ->capture_default_str()
        ->check(CLI::IsMember({"chrome", "csv"}));
    command->add_option("--out", options->out, "output file")->required();
    command->callback([options, &action] { action = [options] { return exportRun(*options); }; });
}

}  // namespace glueprof::cli
