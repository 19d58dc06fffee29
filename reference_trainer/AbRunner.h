#pragma once
// Runs the trainer under the tracer: a single run, or an A/B of one toggle in interleaved blocks
// (warm-up for each arm, then baseline block, optimized block, baseline block, ...), each arm its
// own trainer with the same seed and the same batches, each arm its own run in the store.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "optimizations/ToggleRegistry.h"
#include "profiler/session/CaptureSession.h"
#include "profiler/torch_ops/TorchEnvironment.h"
#include "reference_trainer/TrainConfig.h"

namespace glueprof {

class RankGroup;

struct AbSchedule {
    int warmup = 2;   // steps per arm before measuring, excluded from statistics
    int steps = 4;    // measured steps per block
    int repeats = 3;  // blocks per arm
    // A/A control: the "optimized" arm runs without the toggle too, so the comparison shows the
    // noise floor and `check` must fail on it.
    bool aaControl = false;
    // > 0: the seconds this A/B may take. After the warm-up (which must be at least 1 step), the
    // measured steps per block are chosen from the warm-up's step time so that all `repeats`
    // blocks of both arms fit in what is left: at least 1, at most `steps`.
    double budgetSeconds = 0.0;
};

// Steps per block that fit `secondsLeft` for 2 arms x `repeats` blocks at `stepSeconds` a step,
// clamped to [1, maxSteps].
int stepsWithinBudget(double secondsLeft, double stepSeconds, int repeats, int maxSteps);

struct AbRuns {
    RunId baseline = 0;
    RunId optimized = 0;
};

// After every step: which arm ("baseline"/"optimized"/"run"), steps done and in total, and the
// step.
struct StepProgress {
    std::string arm;
    int done = 0;
    int total = 0;
    bool warmup = false;
    double loss = 0.0;
    double stepMs = 0.0;
};
// May throw to stop the run (the runs are then marked failed).
using ProgressCallback = std::function<void(const StepProgress& progress)>;

// The arms are runs of one A/B group (baseline and optimized, the toggle in their identity).
// Callers check the request first (RecordingChecks.h: device, memory, the database's directory);
// these functions only run it.
// With a rank group, this process's rank of a data-parallel A/B: its arms carry the rank and world
// size, and the steps per block a --budget allows are rank 0's choice on every rank (the ranks'
// collectives must pair up).
AbRuns runAbComparison(const TrainConfig& base, const Toggle& toggle, const AbSchedule& schedule,
                       CaptureSession& session, const ProgressCallback& progress = {},
                       RankGroup* group = nullptr);

// One run with `toggles` applied: warm-up steps then measured steps. With a rank group, this
// process's rank of a data-parallel run (its identity carries the rank and world size).
RunId runSingle(const TrainConfig& base, const std::vector<const Toggle*>& toggles, int warmup,
                int steps, CaptureSession& session, const ProgressCallback& progress = {},
                RankGroup* group = nullptr);

// Deterministic algorithms for CUDA A/Bs (at::globalContext, and CUBLAS_WORKSPACE_CONFIG=:4096:8
// unless set): the arms' losses are compared bit for bit. Recorded in each run's environment.
void makeCudaDeterministic();

// torch version, CUDA availability, threads, deterministic algorithms, host and how GPU activity
// was captured
// (`gpuCapture`, CaptureSession::captureSummary), and what tracing adds per recorded op
// (`tracing_ns_per_op`, CaptureSession::tracingCostNsPerOp): the `environment_json` of a run.
std::string environmentJson(const TrainConfig& config, const std::string& gpuCapture,
                            std::optional<double> tracingNsPerOp = std::nullopt);
std::string hostName();

}  // namespace glueprof
