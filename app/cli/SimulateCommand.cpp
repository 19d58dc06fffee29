// glueprof simulate: the pipeline simulator from a cost file or from costs measured on a preset,
// recorded into the trace store (simulated-worker lanes) and analyzed by the bubble analyzer.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "analyzers/LayerCosts.h"
#include "analyzers/PipelineBubbles.h"
#include "analyzers/PipelineReplay.h"
#include "app/cli/Commands.h"
#include "app/cli/NumberChecks.h"
#include "app/cli/Progress.h"
#include "app/cli/TrainerOptions.h"
#include "app/report/ResultsJson.h"
#include "app/report/StoredRunJson.h"
#include "optimizations/pipeline_schedule/CostFile.h"
#include "optimizations/pipeline_schedule/Partitioner.h"
#include "optimizations/pipeline_schedule/PipelineSimulator.h"
#include "optimizations/pipeline_schedule/SimulationTrace.h"
#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/TraceReader.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/RecordingChecks.h"

namespace glueprof::cli {

namespace {

struct SimulateOptions {
    std::vector<std::string> schedules;
    int workers = 0;       // 0: the cost file's, else 2
    int microbatches = 0;  // 0: the cost file's, else workers + 1
    int iterations = 1;
    bool async = false;
    std::string costs;
    std::string preset;
    double scale = 1.0;
    std::int64_t seqLen = 0;
    std::string partition;
    std::string backwardPartition;
    double hopMs = -1.0;        // < 0: the cost file's
    double optimizerMs = -1.0;  // < 0: the cost file's
    bool predict = false;
    long long replay = 0;  // an executed pipeline run to take costs and plan from
    std::string db = "runs.sqlite";
    std::string device = "cpu";  // of the run that measures a preset
    bool json = false;
};

// Costs an analyzer measured, as the simulator takes them (no hops, no optimizer).
pipeline::PipelineCosts simulatorCosts(const PerLayerCosts& measured) {
    pipeline::PipelineCosts costs;
    costs.forwardMs = measured.forwardMs;
    costs.recomputeMs = measured.recomputeMs;
    costs.backwardMs = measured.backwardMs;
    costs.headForwardMs = measured.headForwardMs;
    costs.headBackwardMs = measured.headBackwardMs;
    return costs;
}

// The preset whose costs `--preset` measures.
TrainConfig measuredConfig(const SimulateOptions& o) {
    TrainConfig config = presetConfig(o.preset, o.scale);
    if (o.seqLen > 0) config.seqLen = o.seqLen;
    config.device = o.device;
    return config;
}

// Costs measured on a preset: a short single-worker run recorded into the database, then per-layer
// medians (analyzers/LayerCosts).
pipeline::PipelineCosts measurePreset(const SimulateOptions& o, const TrainConfig& config,
                                      CaptureSession& session) {
    const InterruptionScope interruptible;  // Ctrl-C: the measuring run ends aborted
    const RunId run = runSingle(config, {}, 1, 2, session, terminalProgress("measure " + o.preset));
    endProgressLine();
    session.writer().flush();
    const LayerCostsResult measured =
        measureLayerCosts(TraceReader(session.writer().path()).loadRun(run));
    if (!measured.complete()) {
        throw inputError(
            "the measured run has no layer ranges to take costs from: the preset must have layers");
    }
    const pipeline::PipelineCosts costs = simulatorCosts(measured);
    std::cerr << fmt::format(
        "measured {} layers of {} on this machine (run {}, {} micro-batches): forward {:.3f} ms, "
        "backward {:.3f} ms per layer (median of layer 0), head {:.3f} + {:.3f} ms\n",
        costs.layers(), o.preset, run, measured.microbatchesMeasured, costs.forwardMs[0],
        costs.backwardMs[0], costs.headForwardMs, costs.headBackwardMs);
    return costs;
}

pipeline::SimulationSpec specFor(pipeline::Schedule schedule, int workers, int microbatches,
                                 const SimulateOptions& o, const pipeline::CostFile& file) {
    pipeline::SimulationSpec spec;
    spec.schedule = schedule;
    spec.workers = workers;
    spec.microbatches = microbatches;
    spec.iterations = o.iterations;
    spec.optimizer =
        o.async ? pipeline::OptimizerMode::kAsynchronous : pipeline::OptimizerMode::kSynchronous;
    spec.costs = file.costs;
    const int layers = static_cast<int>(spec.costs.layers());
    const std::string name = pipeline::toString(schedule);
    if (schedule == pipeline::Schedule::kRoundPipe) {
        const bool given = file.partitions.count("roundpipe-forward") != 0;
        const pipeline::RoundPipePartition automatic = pipeline::roundPipePartition(spec.costs);
        spec.forwardPartition = !o.partition.empty() ? parseLayerCounts(o.partition, "--partition")
                                : given              ? file.partitions.at("roundpipe-forward")
                                                     : automatic.forward;
        spec.backwardPartition = !o.backwardPartition.empty()
                                     ? parseLayerCounts(o.backwardPartition, "--backward-partition")
                                 : given ? file.partitions.at("roundpipe-backward")
                                         : automatic.backward;
    } else if (!o.partition.empty()) {
        spec.forwardPartition = parseLayerCounts(o.partition, "--partition");
    } else if (file.partitions.count(name) != 0 &&
               (schedule == pipeline::Schedule::kLoopedBfs
                    ? file.partitions.at(name).size() % static_cast<std::size_t>(workers) == 0
                    : file.partitions.at(name).size() == static_cast<std::size_t>(workers))) {
        spec.forwardPartition =
            file.partitions.at(name);  // the file's, when it fits this many workers
    } else if (schedule == pipeline::Schedule::kLoopedBfs) {
        spec.forwardPartition = pipeline::loopedBfsPartition(layers, workers);
    } else {
        spec.forwardPartition = pipeline::balancedPartition(layers, workers);
    }
    return spec;
}

nlohmann::json resultJson(const pipeline::SimulationSpec& spec,
                          const pipeline::SimulationResult& result, const BubbleResult& bubbles,
                          RunId run, const std::string& db) {
    nlohmann::json perWorker = nlohmann::json::array();
    for (std::size_t w = 0; w < bubbles.perWorker.size(); ++w) {
        const double busy = static_cast<double>(bubbles.perWorker[w].busyNs) / 1e6;
        perWorker.push_back(
            {{"worker", w},
             {"busy_ms", busy},
             {"idle_ms", result.makespanMs - busy},
             {"utilization", result.makespanMs > 0 ? busy / result.makespanMs : 0.0}});
    }
    nlohmann::json j = {
        {"schedule", pipeline::toString(spec.schedule)},
        {"workers", spec.workers},
        {"microbatches", spec.microbatches},
        {"iterations", spec.iterations},
        {"optimizer",
         spec.optimizer == pipeline::OptimizerMode::kSynchronous ? "synchronous" : "asynchronous"},
        {"makespan_ms", result.makespanMs},
        {"bubble_ratio", bubbles.ratio},
        {"breakdown", nlohmann::json::object()},
        {"hop_total_ms", result.hopTotalMs},
        {"hop_exposed_ms", result.hopExposedMs},
        {"forward_partition", spec.forwardPartition},
        {"per_worker", perWorker},
        {"run", run},
        {"db", db}};
    for (const auto& [name, part] : bubbles.breakdown()) j["breakdown"][name] = part;
    if (spec.schedule == pipeline::Schedule::kRoundPipe)
        j["backward_partition"] = spec.backwardPartition;
    return j;
}

std::string partitionText(const std::vector<int>& p) {
    std::string text;
    for (int n : p) text += (text.empty() ? "" : ",") + std::to_string(n);
    return text;
}

std::string resultText(const nlohmann::json& j) {
    std::string out = fmt::format(
        "{}: {} workers, {} micro-batches, {} iteration(s), {} optimizer\n",
        j["schedule"].get<std::string>(), j["workers"].get<int>(), j["microbatches"].get<int>(),
        j["iterations"].get<int>(), j["optimizer"].get<std::string>());
    out += fmt::format("  partition      {}",
                       partitionText(j["forward_partition"].get<std::vector<int>>()));
    if (j.contains("backward_partition")) {
        out += fmt::format("  |  backward {}",
                           partitionText(j["backward_partition"].get<std::vector<int>>()));
    }
    out += fmt::format(
        "\n  makespan       {:.2f} ms\n  bubble ratio   {:.2f}%  (fill {:.2f}%, switch {:.2f}%, "
        "drain "
        "{:.2f}%, intra {:.2f}%)\n  hops           {:.2f} ms issued, {:.2f} ms exposed\n",
        j["makespan_ms"].get<double>(), 100 * j["bubble_ratio"].get<double>(),
        100 * j["breakdown"]["fill"].get<double>(), 100 * j["breakdown"]["switch"].get<double>(),
        100 * j["breakdown"]["drain"].get<double>(), 100 * j["breakdown"]["intra"].get<double>(),
        j["hop_total_ms"].get<double>(), j["hop_exposed_ms"].get<double>());
    for (const nlohmann::json& w : j["per_worker"]) {
        out +=
            fmt::format("  worker {:<3}     busy {:>10.2f} ms  idle {:>10.2f} ms  ({:.1f}% busy)\n",
                        w["worker"].get<int>(), w["busy_ms"].get<double>(),
                        w["idle_ms"].get<double>(), 100 * w["utilization"].get<double>());
    }
    return out;
}

// The simulator's costs from the jobs an executed pipeline ran (analyzers/PipelineReplay).
pipeline::PipelineCosts replayedCosts(const TraceModel& model,
                                      const pipeline::SimulationSpec& plan) {
    ReplayPlan shape;
    shape.roundPipe = plan.schedule == pipeline::Schedule::kRoundPipe;
    shape.layers = plan.costs.layers();
    shape.forwardPartition = plan.forwardPartition;
    shape.backwardPartition = plan.backwardPartition;
    pipeline::PipelineCosts costs = simulatorCosts(measureReplayCosts(model, shape));
    costs.hopMs = plan.costs.hopMs;
    return costs;
}

// "Measure, then replay": an executed pipeline run's plan and its jobs' measured costs.
struct Replayed {
    pipeline::CostFile file;
    std::string schedule;
    BubbleResult executed;
    std::string label;
};

Replayed replayRun(const std::string& db, RunId run) {
    const TraceModel model = TraceReader(db).loadRun(run);
    const nlohmann::json config = parseStoredRunJson(model.run(), StoredRunColumn::kConfig);
    if (!config.contains("pipeline_plan")) {
        throw inputError(fmt::format(
            "run {} in '{}' is not an executed pipeline (no pipeline_plan): record one with "
            "`glueprof ab --opt roundpipe`",
            run, db));
    }
    Replayed r;
    try {
        const pipeline::SimulationSpec plan =
            pipeline::specFromJson(config["pipeline_plan"].dump());
        r.file.costs = replayedCosts(model, plan);
        r.file.workers = plan.workers;
        r.file.microbatches = plan.microbatches;
        r.schedule = pipeline::toString(plan.schedule);
        if (plan.schedule == pipeline::Schedule::kRoundPipe) {
            r.file.partitions["roundpipe-forward"] = plan.forwardPartition;
            r.file.partitions["roundpipe-backward"] = plan.backwardPartition;
        } else {
            r.file.partitions[r.schedule] = plan.forwardPartition;
        }
    } catch (const std::invalid_argument& e) {
        throw inputError(fmt::format("run {}: {}", run, e.what()));
    }
    r.executed = analyzeBubbles(model);
    r.label = model.run().label;
    return r;
}

// P and M of the simulations: the flags', else the cost file's (M only with its P), else P = 2 and
// M = P + 1.
struct PipelineShape {
    int workers = 2;
    int microbatches = 3;
};

PipelineShape resolveShape(const SimulateOptions& o, const pipeline::CostFile& file) {
    PipelineShape shape;
    shape.workers = o.workers > 0 ? o.workers : (file.workers > 0 ? file.workers : 2);
    shape.microbatches =
        o.microbatches > 0
            ? o.microbatches
            : (file.microbatches > 0 && o.workers == 0 ? file.microbatches : shape.workers + 1);
    return shape;
}

// --predict: the same costs for P = 2..8 under Looped-BFS and RoundPipe with M = 2P, each stage
// plan from the partitioners (not the cost file's or the flags').
std::vector<pipeline::SimulationSpec> predictionSpecs(const SimulateOptions& o,
                                                      const pipeline::CostFile& file) {
    SimulateOptions plain = o;
    plain.partition.clear();
    plain.backwardPartition.clear();
    pipeline::CostFile noPartitions = file;
    noPartitions.partitions.clear();
    std::vector<pipeline::SimulationSpec> specs;
    for (int p = 2; p <= 8; ++p) {
        for (pipeline::Schedule s :
             {pipeline::Schedule::kLoopedBfs, pipeline::Schedule::kRoundPipe}) {
            specs.push_back(specFor(s, p, 2 * p, plain, noPartitions));
        }
    }
    return specs;
}

// Every simulation the command will run, its predictions too, built and checked before anything
// is written: one too large to simulate is an input error with its size; one the simulator refuses
// (partitions that do not cover the layers, a cost out of range) a usage error.
void checkSimulations(const SimulateOptions& o, const pipeline::CostFile& file,
                      const std::vector<std::string>& schedules) {
    const PipelineShape shape = resolveShape(o, file);
    std::vector<pipeline::SimulationSpec> specs;
    try {
        for (const std::string& name : schedules) {
            specs.push_back(
                specFor(pipeline::parseSchedule(name), shape.workers, shape.microbatches, o, file));
        }
        if (o.predict) {
            for (pipeline::SimulationSpec& spec : predictionSpecs(o, file)) {
                specs.push_back(std::move(spec));
            }
        }
    } catch (const std::invalid_argument& e) {
        throw usageError(e.what());
    }
    for (const pipeline::SimulationSpec& spec : specs) {
        const std::string tooLarge = pipeline::simulationSizeProblem(spec);
        if (!tooLarge.empty()) throw inputError(tooLarge);
        try {
            pipeline::validateSimulation(spec);
        } catch (const std::invalid_argument& e) {
            throw usageError(e.what());
        }
    }
}

int simulateCommand(const SimulateOptions& o) {
    const int sources =
        (o.costs.empty() ? 0 : 1) + (o.preset.empty() ? 0 : 1) + (o.replay > 0 ? 1 : 0);
    if (sources != 1) {
        throw usageError(
            "give the costs once: --costs FILE (e.g. assets/pipeline/roundpipe-1.7b.json), "
            "--preset NAME "
            "(measured on this machine) or --replay RUN (an executed pipeline in --db)");
    }
    if (std::isnan(o.hopMs) || std::isnan(o.optimizerMs)) {
        throw usageError("--hop-ms and --optimizer-ms take a number of milliseconds");
    }
    std::optional<Replayed> replayed;
    if (o.replay > 0) replayed = replayRun(o.db, static_cast<RunId>(o.replay));
    pipeline::CostFile file;
    if (replayed) file = replayed->file;
    if (!o.costs.empty()) {
        try {
            file = pipeline::loadCostFile(o.costs);
        } catch (const std::invalid_argument& e) {
            throw inputError(e.what());
        }
    }
    // Checks before any file: an unknown schedule, preset or a malformed partition is a usage
    // error, a preset that does not fit in memory an input error. Simulated runs are recorded
    // through the same capture session as trained ones (the measuring run, on a preset, is traced
    // like any `glueprof run`, with GPU capture on --device cuda).
    for (const std::string& name : o.schedules) {
        try {
            pipeline::parseSchedule(name);
        } catch (const std::invalid_argument& e) {
            throw usageError(e.what());
        }
    }
    if (!o.partition.empty()) parseLayerCounts(o.partition, "--partition");
    if (!o.backwardPartition.empty()) {
        parseLayerCounts(o.backwardPartition, "--backward-partition");
    }
    std::optional<TrainConfig> config;
    if (!o.preset.empty()) {
        config = measuredConfig(o);
        checkTrainingRequest(*config, o.db, 1);
        // Checked on the preset's layers with unit costs until the measured ones replace them.
        file.costs = pipeline::PipelineCosts::uniform(static_cast<int>(config->model.layers), 1.0,
                                                      1.0, 1.0, 1.0, 0.0);
    }
    if (o.hopMs >= 0) file.costs.hopMs = o.hopMs;
    if (o.optimizerMs >= 0) file.costs.optimizerMs = o.optimizerMs;
    const std::vector<std::string> schedules =
        !o.schedules.empty()
            ? o.schedules
            : std::vector<std::string>{replayed ? replayed->schedule : "roundpipe"};
    checkSimulations(o, file, schedules);
    CaptureSession session(o.db, config ? config->device : "cpu", printNotice);
    TraceWriter& writer = session.writer();
    if (config) {
        const double hopMs = file.costs.hopMs;
        const double optimizerMs = file.costs.optimizerMs;
        file.costs = measurePreset(o, *config, session);
        file.costs.hopMs = hopMs;
        file.costs.optimizerMs = optimizerMs;
    }
    const auto [workers, microbatches] = resolveShape(o, file);

    nlohmann::json results = nlohmann::json::array();
    std::string text;
    for (const std::string& name : schedules) {
        pipeline::SimulationSpec spec;
        pipeline::SimulationResult result;
        try {
            spec = specFor(pipeline::parseSchedule(name), workers, microbatches, o, file);
            result = pipeline::simulate(spec);
        } catch (const std::invalid_argument& e) {
            throw usageError(e.what());
        }
        const RunId run = pipeline::recordSimulation(writer, spec, result, "simulate:" + name,
                                                     o.preset.empty() ? o.costs : o.preset);
        // The stored run's twin in memory: the same analyzer, without reading back what was just
        // written.
        const BubbleResult bubbles = analyzeBubbles(pipeline::simulationModel(spec, result));
        nlohmann::json j = resultJson(spec, result, bubbles, run, o.db);
        text += resultText(j);
        if (replayed && name == replayed->schedule && workers == replayed->file.workers) {
            // The executed run beside its replay: same plan, same P, costs measured in it.
            const BubbleResult& e = replayed->executed;
            j["executed"] = {{"run", o.replay},
                             {"makespan_ms", e.medianStepMakespanMs()},
                             {"bubble_ratio", e.ratio},
                             {"steps", e.stepMakespansNs.size()}};
            text += fmt::format(
                "  executed       run {} ({}): makespan {:.2f} ms per step (median of {}), bubble "
                "{:.2f}%  <- measured; the lines above replay its costs\n",
                o.replay, replayed->label, e.medianStepMakespanMs(), e.stepMakespansNs.size(),
                100 * e.ratio);
        }
        results.push_back(j);
    }
    nlohmann::json predictions = nlohmann::json::array();
    if (o.predict) {  // the same costs replayed for P = 2..8, analyzed as any simulated run
        text +=
            "\npredicted (same costs, M = 2P):\n  P   looped-bfs makespan  bubble   roundpipe "
            "makespan  bubble\n";
        nlohmann::json row;
        std::string line;
        for (const pipeline::SimulationSpec& spec : predictionSpecs(o, file)) {
            if (row.empty() || row["workers"] != spec.workers) {  // a new P: a new row
                if (!row.empty()) {
                    predictions.push_back(row);
                    text += line + "\n";
                }
                row = {{"workers", spec.workers}};
                line = fmt::format("  {:<3}", spec.workers);
            }
            const pipeline::SimulationResult r = pipeline::simulate(spec);
            const double ratio = analyzeBubbles(pipeline::simulationModel(spec, r)).ratio;
            row[pipeline::toString(spec.schedule)] = {{"makespan_ms", r.makespanMs},
                                                      {"bubble_ratio", ratio}};
            line += fmt::format(" {:>16.2f} ms  {:>5.1f}%", r.makespanMs, 100 * ratio);
        }
        predictions.push_back(row);
        text += line + "\n";
    }
    session.close();
    if (o.json) {
        nlohmann::json out =
            results.size() == 1 ? results[0] : nlohmann::json{{"simulations", results}};
        if (o.predict) out["predictions"] = predictions;
        std::cout << jsonText(out) << "\n";
    } else {
        std::cout << text << fmt::format("database: {}\n", o.db);
    }
    return 0;
}

}  // namespace

void registerSimulateCommand(CLI::App& app, Action& action) {
    auto o = std::make_shared<SimulateOptions>();
    CLI::App* command = app.add_subcommand("simulate",
                                           "simulate a pipeline schedule (gpipe, 1f1b, looped-bfs, "
                                           "roundpipe): makespan and bubble ratio");
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
    command->add_flag("--json", o->json, "print one JSON object");
    command->callback([o, &action] { action = [o] { return simulateCommand(*o); }; });
}

}  // namespace glueprof::cli
