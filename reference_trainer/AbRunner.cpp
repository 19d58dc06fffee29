#include "reference_trainer/AbRunner.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/MachineLoad.h"
#include "profiler/core/RunMetadata.h"

#include <algorithm>

#include <chrono>

#include <torch/torch.h>
#include <torch/version.h>
#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "profiler/torch_ops/CudaDevice.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/Trainer.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

std::string hostName() {
    char name[256] = {0};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

void makeCudaDeterministic() {
    // cuBLAS reads its workspace setting when it creates a handle: before the first GEMM. Kept when
    // the user set one (":16:8" is also deterministic).
    ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 0);
    // warn_only by default: an op with no deterministic CUDA kernel warns instead of ending the
    // run. The catch (not yet seen on a GPU): memory-efficient attention keeps its
    // non-deterministic backward in warn-only mode, so CUDA losses may differ between arms.
    // GLUEPROF_CUDA_STRICT_DETERMINISM=1 makes such ops throw instead (attention then takes its
    // deterministic path), for gpu-check to try.
    const char* strict = std::getenv("GLUEPROF_CUDA_STRICT_DETERMINISM");
    const bool warnOnly = strict == nullptr || std::string(strict) != "1";
    at::globalContext().setDeterministicAlgorithms(true, warnOnly);
    // Deterministic mode would otherwise fill every uninitialized allocation (a kernel per
    // at::empty) in both arms: cost the A/B does not want to measure.
    at::globalContext().setDeterministicFillUninitializedMemory(false);
}

std::string environmentJson(const TrainConfig& config, const std::string& gpuCapture,
                            std::optional<double> tracingNsPerOp) {
    const TorchEnvironment torch = torchEnvironment();
    const char* workspace = std::getenv("CUBLAS_WORKSPACE_CONFIG");
    nlohmann::json j = {
        {envKey(EnvironmentKey::kDeterministicAlgorithms),
         at::globalContext().deterministicAlgorithms()},
        {envKey(EnvironmentKey::kDeterministicWarnOnly),
         at::globalContext().deterministicAlgorithmsWarnOnly()},
        {envKey(EnvironmentKey::kCublasWorkspaceConfig), workspace != nullptr ? workspace : ""},
        {envKey(EnvironmentKey::kTorchVersion), torch.version},
        {envKey(EnvironmentKey::kTorchCuda), torch.cuda},
        {envKey(EnvironmentKey::kCudaDevices), torch.cudaDevices},
        {envKey(EnvironmentKey::kIntraOpThreads), torch.intraOpThreads},
        {envKey(EnvironmentKey::kFlushDenormal), true},
        {envKey(EnvironmentKey::kDevice), config.device},
        {envKey(EnvironmentKey::kGpuCapture), gpuCapture},
    };
    // What the tracer adds per recorded op, calibrated when the capture started (TracingCost.h).
    // null: the calibration could not tell (a machine too busy, no scratch database).
    j[envKey(EnvironmentKey::kTracingNsPerOp)] =
        tracingNsPerOp ? nlohmann::json(*tracingNsPerOp) : nlohmann::json();
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

RunInfo runInfo(const TrainConfig& config, const CaptureSession& session, const std::string& label,
                const std::vector<std::string>& toggles, const RankGroup* group) {
    RunInfo info;
    info.label = label;
    if (group != nullptr) {
        // The label is for people; readers use the rank and world size columns.
        info.label += fmt::format(" rank {}/{}", group->rank(), group->worldSize());
        info.identity.rank = group->rank();
        info.identity.worldSize = group->worldSize();
    }
    info.preset = config.preset;
    info.device = config.device;
    info.configJson = toJson(config);
    info.togglesJson = nlohmann::json(toggles).dump();
    info.environmentJson =
        environmentJson(config, session.captureSummary(), session.tracingCostNsPerOp());
    info.host = hostName();
    info.identity.kind = RunKind::kTrained;
    if (config.optimizations.pipeline.mode != PipelineMode::kOff) {
        info.identity.schedule = toString(config.optimizations.pipeline.mode);
    }
    return info;
}

// An arm of `toggle`'s A/B: the baseline starts the group, the optimized arm joins it.
RunInfo armInfo(const TrainConfig& config, const CaptureSession& session, const Toggle& toggle,
                Arm arm, RunId group, const std::vector<std::string>& toggles,
                const RankGroup* ranks) {
    // The label is for people (list, reports); readers use the identity columns.
    RunInfo info = runInfo(config, session, toggle.name() + ":" + toString(arm), toggles, ranks);
    info.identity.abGroup = group;
    info.identity.arm = arm;
    info.identity.toggle = toggle.name();
    return info;
}

// One arm of a run: a trainer and the run it records into.
struct ArmTrainer {
    std::string name;
    RunId run;
    Trainer trainer;
    int nextStep = 0;
    double lastStepMs = 0.0;

    void steps(HostTracer& tracer, int count, bool warmup, int block, int& done, int total,
               const ProgressCallback& progress) {
        tracer.setRun(run);
        for (int i = 0; i < count; ++i) {
            throwIfInterrupted();  // a step boundary: what finished is kept
            const StepResult result = trainer.step(nextStep++, warmup, block);
            lastStepMs = static_cast<double>(result.endNs - result.startNs) / 1e6;
            ++done;
            if (progress) {
                progress(StepProgress{name, done, total, warmup, result.loss,
                                      static_cast<double>(result.endNs - result.startNs) / 1e6});
            }
        }
    }
};

// Marks the runs failed when an exception leaves the scope (aborted when a signal ended them),
// complete otherwise.
class RunsGuard {
  public:
    RunsGuard(TraceWriter& writer, std::vector<RunId> runs, HostTracer* tracer = nullptr)
        : m_writer(writer), m_runs(std::move(runs)), m_tracer(tracer) {}
    void complete() { finish(RunStatus::kComplete); }
    ~RunsGuard() { finish(pendingInterruption() != 0 ? RunStatus::kAborted : RunStatus::kFailed); }

  private:
    void finish(RunStatus status) {
        if (m_done) return;
        m_done = true;
        for (RunId run : m_runs) m_writer.endRun(run, status);
        // Nothing recorded from now on belongs to these runs (the next A/B builds its trainers
        // outside any run).
        if (m_tracer != nullptr) m_tracer->setRun(0);
    }
    TraceWriter& m_writer;
    std::vector<RunId> m_runs;
    HostTracer* m_tracer;
    bool m_done = false;
};

}  // namespace

int stepsWithinBudget(double secondsLeft, double stepSeconds, int repeats, int maxSteps) {
    if (stepSeconds <= 0.0 || repeats <= 0) return std::max(1, maxSteps);
    const double fit = secondsLeft / (2.0 * repeats * stepSeconds);
    const int most = std::max(1, maxSteps);
    // Clamped as a double: a large budget over a fast step is past int's range (UB to convert).
    if (!(fit >= 1.0)) return 1;  // NaN too
    return fit >= most ? most : static_cast<int>(fit);
}

AbRuns runAbComparison(const TrainConfig& base, const Toggle& toggle, const AbSchedule& schedule,
                       CaptureSession& session, const ProgressCallback& progress,
                       RankGroup* group) {
    TrainConfig baselineConfig = base;
    baselineConfig.optimizations = baselineSettings(toggle, base.optimizations);
    TrainConfig optimizedConfig = base;
    optimizedConfig.optimizations = schedule.aaControl
                                        ? baselineConfig.optimizations
                                        : optimizedSettings(toggle, base.optimizations);

    TraceWriter& writer = session.writer();
    HostTracer& tracer = session.tracer();
    AbRuns runs;
    runs.baseline = writer.beginRun(
        armInfo(baselineConfig, session, toggle, Arm::kBaseline, kStartsAbGroup, {}, group));
    runs.optimized = writer.beginRun(armInfo(
        optimizedConfig, session, toggle, Arm::kOptimized, runs.baseline,
        schedule.aaControl ? std::vector<std::string>{} : std::vector<std::string>{toggle.name()},
        group));
    tracer.setRun(0);  // the arms' trainers are built outside any run
    RunsGuard guard(writer, {runs.baseline, runs.optimized}, &tracer);

    const auto started = std::chrono::steady_clock::now();
    ArmTrainer baseline{"baseline", runs.baseline, Trainer(baselineConfig, &tracer, group)};
    ArmTrainer optimized{"optimized", runs.optimized, Trainer(optimizedConfig, &tracer, group)};
    int steps = schedule.steps;
    int total = 2 * (schedule.warmup + steps * schedule.repeats);
    int done = 0;
    baseline.steps(tracer, schedule.warmup, true, 0, done, total, progress);
    optimized.steps(tracer, schedule.warmup, true, 0, done, total, progress);
    if (schedule.budgetSeconds > 0.0 && schedule.warmup > 0) {
        // The warm-up's last step of each arm (the first ones carry one-time costs).
        const double stepSeconds = (baseline.lastStepMs + optimized.lastStepMs) / 2.0 / 1e3;
        const double spent =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        steps = stepsWithinBudget(schedule.budgetSeconds - spent, stepSeconds, schedule.repeats,
                                  schedule.steps);
    }
    if (group != nullptr) {
        // Every rank runs rank 0's choice, whatever its own clock said: one rank stepping more
        // would wait forever in an all-reduce the others never start.
        steps = std::stoi(group->shareFromLeader(
            fmt::format("glueprof/ab/{}/steps-per-block", toggle.name()), std::to_string(steps)));
    }
    total = 2 * (schedule.warmup + steps * schedule.repeats);
    // Arm order alternates per block (ABBA...): a drift in machine speed falls on both arms alike,
    // not always on the arm that runs second.
    // What else the machine ran during each arm's half of each block: an arm that ran while
    // another process took a core is slower for it (docs/metrics.md, "Load that changes between
    // blocks").
    std::vector<BlockLoad> loads[2];
    for (int block = 1; block <= schedule.repeats; ++block) {
        ArmTrainer& first = block % 2 == 1 ? baseline : optimized;
        ArmTrainer& second = block % 2 == 1 ? optimized : baseline;
        for (ArmTrainer* arm : {&first, &second}) {
            const MachineLoadSample before = sampleMachineLoad();
            arm->steps(tracer, steps, false, block, done, total, progress);
            if (const std::optional<MachineLoad> load = loadBetween(before, sampleMachineLoad()))
                loads[arm == &baseline ? 0 : 1].push_back(BlockLoad{block, *load});
        }
    }
    for (int arm = 0; arm < 2; ++arm) {
        writer.recordDiagnostic(DiagnosticRecord{
            arm == 0 ? runs.baseline : runs.optimized, kMachineLoadDiagnostic,
            static_cast<std::int64_t>(loads[arm].size()), blockLoadsJson(loads[arm])});
    }
    baseline.trainer.finish();
    optimized.trainer.finish();
    throwIfInterrupted();  // a signal in the last step: the runs end aborted, not complete
    guard.complete();
    return runs;
}

RunId runSingle(const TrainConfig& base, const std::vector<const Toggle*>& toggles, int warmup,
                int steps, CaptureSession& session, const ProgressCallback& progress,
                RankGroup* group) {
    TrainConfig config = base;
    std::vector<std::string> names;
    for (const Toggle* toggle : toggles) {
        config.optimizations = baselineSettings(*toggle, config.optimizations);
    }
    for (const Toggle* toggle : toggles) {
        toggle->apply(config.optimizations);
        names.push_back(toggle->name());
    }
    TraceWriter& writer = session.writer();
    HostTracer& tracer = session.tracer();
    const std::string label = names.empty() ? "baseline" : nlohmann::json(names).dump();
    const RunInfo info = runInfo(config, session, label, names, group);
    RunId run = writer.beginRun(info);
    tracer.setRun(0);
    RunsGuard guard(writer, {run}, &tracer);
    ArmTrainer arm{"run", run, Trainer(config, &tracer, group)};
    int done = 0;
    arm.steps(tracer, warmup, true, 0, done, warmup + steps, progress);
    arm.steps(tracer, steps, false, 1, done, warmup + steps, progress);
    arm.trainer.finish();
    throwIfInterrupted();  // a signal in the last step: the runs end aborted, not complete
    guard.complete();
    return run;
}

}  // namespace glueprof
