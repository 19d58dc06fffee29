// glueprof simulate: the pipeline simulator from a cost file, costs measured on a preset or an
// executed pipeline run replayed, recorded into the trace store and analyzed by the bubble
// analyzer. A thin caller: the use case is app/usecases' runSimulation, the renderings
// app/report's.
#include <iostream>
#include <memory>

#include "app/cli/Commands.h"
#include "app/cli/NumberChecks.h"
#include "app/cli/Progress.h"
#include "app/cli/TorchCommands.h"
#include "app/report/ResultsJson.h"
#include "app/report/SimulationText.h"
#include "app/usecases/SimulationRequest.h"
#include "optimizations/pipeline_schedule/PipelineSimulator.h"

namespace glueprof::cli {

namespace {

struct SimulateOptions {
    SimulationRequest request;  // the flags fill it
    bool json = false;
};

int simulateCommand(const SimulateOptions& o) {
    SimulationProgress progress;
    progress.notice = printNotice;
    if (!o.request.preset.empty()) progress.step = terminalProgress("measure " + o.request.preset);
    progress.measured = [](const MeasuredCosts& measured) {
        endProgressLine();
        std::cerr << renderMeasuredCosts(measured);
    };
    const SimulationResults results = runSimulation(o.request, progress);
    std::cout << (o.json ? jsonText(toJson(results)) + "\n" : renderSimulationText(results));
    return 0;
}

}  // namespace

void registerSimulateCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<SimulateOptions>();
    SimulationRequest* o = &options->request;
    CLI::App* command = app.add_subcommand(kSimulateDescription.name, kSimulateDescription.text);
    command->add_option("--schedule", o->schedules,
                        "gpipe, 1f1b, looped-bfs or roundpipe (repeatable; default roundpipe)");
    command->add_option("--workers", o->workers, "workers P (default: the cost file's, else 2)")
        ->check(CLI::Range(1, pipeline::kMaxWorkers));
    command
        ->add_option("--microbatches", o->microbatches,
                     "micro-batches M (default: the cost file's, else P + 1)")
        ->check(CLI::Range(1, pipeline::kMaxMicrobatches));
    command->add_option("--iterations", o->iterations, "training iterations to simulate")
        ->capture_default_str()
        ->check(CLI::Range(1, pipeline::kMaxIterations));
    command->add_flag("--async", o->async,
                      "RoundPipe's asynchronous optimizer (one-step-stale weights)");
    command->add_option("--costs", o->costs, "cost file (assets/pipeline/*.json)");
    command->add_option("--preset", o->preset,
                        "measure per-layer costs of this trainer preset on this machine");
    command->add_option("--scale", o->scale, "with --preset: shrink the model (as run/ab --scale)");
    command->add_option("--seq-len", o->seqLen, "with --preset: tokens per micro-batch");
    command
        ->add_option("--device", o->device,
                     "with --preset: where the costs are measured (cpu, or cuda with GPU capture)")
        ->capture_default_str();
    command->add_option(
        "--replay", o->replay,
        "an executed pipeline run in --db (ab --opt roundpipe): replay its plan with the costs its "
        "jobs measured, next to its executed bubble");
    command->add_option("--partition", o->partition,
                        "layers per stage, e.g. 7,7,7,7 (RoundPipe: the forward partition)");
    command->add_option(
        "--backward-partition", o->backwardPartition,
        "RoundPipe's backward partition, head stage first, e.g. 0,3,3,3,3,3,3,3,3,2,2");
    command
        ->add_option("--hop-ms", o->hopMs,
                     "cost of one hand-off between workers (default: the cost file's)")
        ->check(finiteRange(0.0, pipeline::kMaxCostMs));
    command
        ->add_option("--optimizer-ms", o->optimizerMs,
                     "optimizer step between synchronous iterations")
        ->check(finiteRange(0.0, pipeline::kMaxCostMs));
    command->add_flag("--predict", o->predict,
                      "also predict P = 2..8 for Looped-BFS and RoundPipe with the same costs");
    command->add_option("--db", o->db, "trace database the simulated runs are written to")
        ->capture_default_str();
    command->add_flag("--json", options->json, "print one JSON object");
    command->callback(
        [options, &action] { action = [options] { return simulateCommand(*options); }; });
}

}  // namespace glueprof::cli
