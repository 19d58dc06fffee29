#include "app/usecases/SimulationRequest.h"

#include <cmath>
#include <optional>
#include <stdexcept>

#include "analyzers/PipelineBubbles.h"
#include "app/usecases/SimulationCosts.h"
#include "optimizations/pipeline_schedule/LayerCounts.h"
#include "optimizations/pipeline_schedule/SimulationPlan.h"
#include "optimizations/pipeline_schedule/SimulationTrace.h"
#include "profiler/core/Error.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/RecordingChecks.h"

namespace glueprof {

namespace {

void checkCostSources(const SimulationRequest& r) {
    const int sources =
        (r.costs.empty() ? 0 : 1) + (r.preset.empty() ? 0 : 1) + (r.replay > 0 ? 1 : 0);
    if (sources != 1) {
        throw usageError(
            "give the costs once: --costs FILE (e.g. assets/pipeline/roundpipe-1.7b.json), "
            "--preset NAME "
            "(measured on this machine) or --replay RUN (an executed pipeline in --db)");
    }
    if (std::isnan(r.hopMs) || std::isnan(r.optimizerMs)) {
        throw usageError("--hop-ms and --optimizer-ms take a number of milliseconds");
    }
}

pipeline::CostFile loadCosts(const std::string& path) {
    try {
        return pipeline::loadCostFile(path);
    } catch (const std::invalid_argument& e) {
        throw inputError(e.what());
    }
}

pipeline::Schedule scheduleNamed(const std::string& name) {
    try {
        return pipeline::parseSchedule(name);
    } catch (const std::invalid_argument& e) {
        throw usageError(e.what());
    }
}

// The request's choices for every plan; its partitions parsed (usage errors).
pipeline::PlanChoices planChoices(const SimulationRequest& r) {
    pipeline::PlanChoices choices;
    choices.workers = r.workers;
    choices.microbatches = r.microbatches;
    choices.iterations = r.iterations;
    choices.optimizer =
        r.async ? pipeline::OptimizerMode::kAsynchronous : pipeline::OptimizerMode::kSynchronous;
    if (!r.partition.empty()) {
        choices.forwardPartition = pipeline::parseLayerCounts(r.partition, "--partition");
    }
    if (!r.backwardPartition.empty()) {
        choices.backwardPartition =
            pipeline::parseLayerCounts(r.backwardPartition, "--backward-partition");
    }
    return choices;
}

// The preset whose costs `--preset` measures.
TrainConfig measuredConfig(const SimulationRequest& r) {
    TrainConfig config = presetConfig(r.preset, r.scale);
    if (r.seqLen > 0) config.seqLen = r.seqLen;
    config.device = r.device;
    return config;
}

// Every simulation the request will run, its predictions too, built and checked before anything
// is written: one too large to simulate is an input error with its size; one the simulator refuses
// (partitions that do not cover the layers, a cost out of range) a usage error.
void checkSimulations(const pipeline::PlanChoices& choices, bool predict,
                      const pipeline::CostFile& file, const std::vector<std::string>& schedules) {
    const pipeline::PipelineShape shape = pipeline::resolveShape(choices, file);
    std::vector<pipeline::SimulationSpec> specs;
    try {
        for (const std::string& name : schedules) {
            specs.push_back(pipeline::planSimulation(pipeline::parseSchedule(name), shape.workers,
                                                     shape.microbatches, choices, file));
        }
        if (predict) {
            for (pipeline::SimulationSpec& spec : pipeline::predictionPlans(choices, file)) {
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

// What the results hold of one simulation and its stored run.
SimulatedSchedule resultOf(const pipeline::SimulationSpec& spec,
                           const pipeline::SimulationResult& result, RunId run) {
    SimulatedSchedule s;
    s.schedule = pipeline::toString(spec.schedule);
    s.workers = spec.workers;
    s.microbatches = spec.microbatches;
    s.iterations = spec.iterations;
    s.asynchronousOptimizer = spec.optimizer == pipeline::OptimizerMode::kAsynchronous;
    s.forwardPartition = spec.forwardPartition;
    if (spec.schedule == pipeline::Schedule::kRoundPipe) {
        s.backwardPartition = spec.backwardPartition;
    }
    s.makespanMs = result.makespanMs;
    s.hopTotalMs = result.hopTotalMs;
    s.hopExposedMs = result.hopExposedMs;
    // The stored run's twin in memory: the same analyzer, without reading back what was just
    // written.
    s.bubbles = analyzeBubbles(pipeline::simulationModel(spec, result));
    s.run = run;
    return s;
}

// --predict: the same costs for P = 2..8, analyzed as any simulated run; one row per P.
std::vector<PredictionRow> predictions(const pipeline::PlanChoices& choices,
                                       const pipeline::CostFile& file) {
    std::vector<PredictionRow> rows;
    for (const pipeline::SimulationSpec& spec : pipeline::predictionPlans(choices, file)) {
        if (rows.empty() || rows.back().workers != spec.workers) {
            rows.push_back(PredictionRow{spec.workers, {}});
        }
        const pipeline::SimulationResult r = pipeline::simulate(spec);
        const double ratio = analyzeBubbles(pipeline::simulationModel(spec, r)).ratio;
        rows.back().schedules.push_back({pipeline::toString(spec.schedule), r.makespanMs, ratio});
    }
    return rows;
}

// What the request simulates: the costs (a file's, a replayed run's, or a preset's layers at unit
// costs until measured), the plan choices, the schedules, and the preset to measure.
struct Simulations {
    pipeline::CostFile file;
    pipeline::PlanChoices choices;
    std::vector<std::string> schedules;
    std::optional<ReplayedPipeline> replayed;
    std::optional<TrainConfig> config;  // of the preset to measure
};

// Checks before any file: an unknown schedule, preset or a malformed partition is a usage error, a
// preset that does not fit in memory an input error.
Simulations prepare(const SimulationRequest& r) {
    checkCostSources(r);
    Simulations s;
    if (r.replay > 0) s.replayed = replayPipelineRun(r.db, static_cast<RunId>(r.replay));
    if (s.replayed) s.file = s.replayed->file;
    if (!r.costs.empty()) s.file = loadCosts(r.costs);
    for (const std::string& name : r.schedules) scheduleNamed(name);
    s.choices = planChoices(r);
    if (!r.preset.empty()) {
        s.config = measuredConfig(r);
        checkTrainingRequest(*s.config, r.db, 1);
        // Checked on the preset's layers with unit costs until the measured ones replace them.
        s.file.costs = pipeline::PipelineCosts::uniform(static_cast<int>(s.config->model.layers),
                                                        1.0, 1.0, 1.0, 1.0, 0.0);
    }
    if (r.hopMs >= 0) s.file.costs.hopMs = r.hopMs;
    if (r.optimizerMs >= 0) s.file.costs.optimizerMs = r.optimizerMs;
    s.schedules = !r.schedules.empty()
                      ? r.schedules
                      : std::vector<std::string>{s.replayed ? s.replayed->schedule : "roundpipe"};
    checkSimulations(s.choices, r.predict, s.file, s.schedules);
    return s;
}

// The preset's measured costs in place of the unit ones, with the hop and optimizer kept.
void measurePreset(const SimulationRequest& r, CaptureSession& session,
                   const SimulationProgress& progress, Simulations& s) {
    const MeasuredPreset measured = measurePresetCosts(*s.config, r.preset, session, progress.step);
    if (progress.measured) progress.measured(measured.measured);
    const double hopMs = s.file.costs.hopMs;
    const double optimizerMs = s.file.costs.optimizerMs;
    s.file.costs = measured.costs;
    s.file.costs.hopMs = hopMs;
    s.file.costs.optimizerMs = optimizerMs;
}

// One schedule simulated, recorded as a run and analyzed; beside it, the executed run it replays
// (same plan, same P, costs measured in it).
SimulatedSchedule simulateSchedule(const std::string& name, const pipeline::PipelineShape& shape,
                                   const Simulations& s, const std::string& source,
                                   TraceWriter& writer) {
    pipeline::SimulationSpec spec;
    pipeline::SimulationResult result;
    try {
        spec = pipeline::planSimulation(pipeline::parseSchedule(name), shape.workers,
                                        shape.microbatches, s.choices, s.file);
        result = pipeline::simulate(spec);
    } catch (const std::invalid_argument& e) {
        throw usageError(e.what());
    }
    const RunId run = pipeline::recordSimulation(writer, spec, result, "simulate:" + name, source);
    SimulatedSchedule simulated = resultOf(spec, result, run);
    if (s.replayed && name == s.replayed->schedule && shape.workers == s.replayed->file.workers) {
        simulated.executed = s.replayed->executed;
    }
    return simulated;
}

}  // namespace

SimulationResults runSimulation(const SimulationRequest& request,
                                const SimulationProgress& progress) {
    Simulations s = prepare(request);
    // Simulated runs are recorded through the same capture session as trained ones (the measuring
    // run, on a preset, is traced like any `glueprof run`, with GPU capture on --device cuda).
    CaptureSession session(request.db, s.config ? s.config->device : "cpu", progress.notice);
    if (s.config) measurePreset(request, session, progress, s);
    const pipeline::PipelineShape shape = pipeline::resolveShape(s.choices, s.file);
    const std::string source = request.preset.empty() ? request.costs : request.preset;
    SimulationResults results;
    results.db = request.db;
    for (const std::string& name : s.schedules) {
        results.simulations.push_back(simulateSchedule(name, shape, s, source, session.writer()));
    }
    results.predicted = request.predict;
    if (request.predict) results.predictions = predictions(s.choices, s.file);
    session.close();
    return results;
}

}  // namespace glueprof
