// glueprof import: traces recorded by other tools (torch.profiler / Kineto JSON, Nsight Systems
// SQLite exports) into a trace database, one run per file and rank, for every analyzer, the GUI,
// `compare` and `check` (docs/import.md).
#include <iostream>
#include <memory>

#include "app/cli/Commands.h"
#include "app/cli/ImportProgressLine.h"
#include "app/report/ImportText.h"
#include "app/usecases/ImportRequest.h"

namespace glueprof::cli {

namespace {

// The flags fill the request; --no-python and --no-read-ahead are its keepPythonFunctions and
// readAhead inverted.
struct ImportCliOptions {
    ImportRequest request;
    bool noPython = false;
    bool noReadAhead = false;
};

int importTraces(ImportCliOptions& o) {
    o.request.keepPythonFunctions = !o.noPython;
    o.request.readAhead = !o.noReadAhead;
    ImportProgressLine line;
    ImportProgress progress;  // each line as it happens: a failed import keeps what it stored
    progress.notice = [&line](const std::string& text) {
        line.clear();
        std::cout << text << "\n" << std::flush;
    };
    progress.stored = [&o, &line](const StoredImport& run) {
        line.clear();
        std::cout << renderImportLine(run, o.request.stepPrefix) << std::flush;
    };
    progress.reading = [&line](const std::string& file, std::uint64_t done, std::uint64_t total) {
        line.reading(file, done, total);
    };
    progress.storing = [&line](const std::string& file, std::size_t events) {
        line.storing(file, events);
    };
    const ImportOutcome outcome = runImport(o.request, progress);
    line.clear();
    std::cout << renderImportSummary(outcome);
    return 0;
}

}  // namespace

void registerImportCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<ImportCliOptions>();
    CLI::App* command = app.add_subcommand(
        "import",
        "import torch.profiler (Kineto JSON, .json.gz, a directory of per-rank files) or Nsight "
        "Systems SQLite traces: one run per file and rank");
    command->add_option("traces", options->request.inputs, "trace files or directories")
        ->required();
    command->add_option("--db", options->request.db, "trace database to add the runs to")
        ->capture_default_str();
    command->add_option("--label", options->request.label, "run label (default: the file name)");
    command
        ->add_option("--steps", options->request.stepPrefix,
                     "ranges named PREFIX<N> are step N (torch.profiler: ProfilerStep#; an NVTX "
                     "range name for Nsight traces)")
        ->capture_default_str();
    command->add_flag("--no-python", options->noPython,
                      "skip python_function events (Kineto traces with with_stack=True)");
    command->add_flag("--no-read-ahead", options->noReadAhead,
                      "read each Kineto JSON file on one thread (by default a second one reads "
                      "spans of its events ahead; the runs are the same either way)");
    command->add_flag("--ab", options->request.ab,
                      "the two traces are BEFORE and AFTER of one change: store them as an A/B "
                      "pair (arms A and B) for compare, report, the GUI and check");
    command
        ->add_option("--name", options->request.name,
                     "with --ab: the pair's name, which `check` baselines key on")
        ->capture_default_str();
    command->callback(
        [options, &action] { action = [options] { return importTraces(*options); }; });
}

}  // namespace glueprof::cli
