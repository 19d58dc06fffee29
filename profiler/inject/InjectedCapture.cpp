#include "profiler/inject/InjectedCapture.h"

#include <torch/cuda.h>
#include <torch/version.h>
#include <unistd.h>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>

#include "profiler/core/Clock.h"
#include "profiler/core/Diagnostics.h"
#include "profiler/core/RunMetadata.h"
#include "profiler/torch_ops/UserRangeObserver.h"

namespace glueprof {

namespace {

std::string hostName() {
    char name[256] = {0};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

// Invalid UTF-8 in a command line or a label becomes U+FFFD, as in every JSON glueprof stores.
std::string jsonText(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string chosenDevice(const std::string& device) {
    if (device != "auto") return device;
    return torch::cuda::is_available() ? "cuda" : "cpu";
}

std::string configJson(const profile::ProfileSettings& settings) {
    nlohmann::json command = nlohmann::json::parse(settings.commandJson, nullptr, false);
    if (!command.is_array()) command = nlohmann::json::array();
    return jsonText(nlohmann::json{{"command", command},
                                   {"step_range", settings.stepRange},
                                   {"warmup", settings.warmup},
                                   {"glue_ranges", settings.glueRanges}});
}

std::string environmentJson(const profile::ProfileSettings& settings, const std::string& device,
                            const CaptureSession& session) {
    nlohmann::json environment{
        {envKey(EnvironmentKey::kTorchVersion),
         settings.torchVersion.empty() ? std::string(TORCH_VERSION) : settings.torchVersion},
        {envKey(EnvironmentKey::kTorchCuda), torch::cuda::is_available()},
        {envKey(EnvironmentKey::kCudaDevices), static_cast<int>(torch::cuda::device_count())},
        {envKey(EnvironmentKey::kIntraOpThreads), at::get_num_threads()},
        {envKey(EnvironmentKey::kDevice), device},
        {envKey(EnvironmentKey::kGpuCapture), session.captureSummary()},
        {envKey(EnvironmentKey::kPid), static_cast<long long>(::getpid())},
        {envKey(EnvironmentKey::kRecordedBy), "glueprof profile"},
    };
    const std::optional<double> cost = session.tracingCostNsPerOp();
    environment[envKey(EnvironmentKey::kTracingNsPerOp)] =
        cost ? nlohmann::json(*cost) : nlohmann::json();
    return jsonText(environment);
}

}  // namespace

InjectedCapture::InjectedCapture(const profile::ProfileSettings& settings)
    : m_settings(settings),
      m_rank(profile::rankFromEnvironment()),
      m_launcherWatch(settings.launcherPid, settings.launcherGroup),
      m_steps(settings.stepRange, settings.warmup, Clock::nowNs()) {
    const int rank = m_rank;
    const int worldSize = profile::worldSizeFromEnvironment();
    const std::string device = chosenDevice(settings.device);
    // GPU capture is tried unless the user said cpu: where it cannot start, the run's capture
    // status says why in CUPTI's and the driver's words (no device, no libcupti, ...).
    m_session = std::make_unique<CaptureSession>(profile::tracePath(settings.tracePrefix, rank),
                                                 settings.device == "cpu" ? "cpu" : "cuda");
    RunInfo info;
    info.label = settings.label;
    info.preset = "profile";
    info.device = device;
    info.configJson = configJson(settings);
    info.environmentJson = environmentJson(settings, device, *m_session);
    info.host = hostName();
    if (worldSize > 1) {
        info.identity.rank = rank;
        info.identity.worldSize = worldSize;
    }
    info.identity.arm = parseArm(settings.arm);
    m_run = m_session->writer().beginRun(info);
    HostTracer& tracer = m_session->tracer();
    tracer.setRun(m_run);
    tracer.setStepDetector(&m_steps);
    // What a program's capture counts: the op observer's counts, and the builds of the packed mask
    // by their ranges (UserRangeObserver). Which mask builds are a recompute, what an offload
    // moves and how often it reloads only the reference trainer knows: not stored.
    tracer.storeOnlyCounters({Counter::kOpsDispatched, Counter::kWouldSyncOps, Counter::kHostReads,
                              Counter::kRoutingHostReads, Counter::kMaskBuilds});
    m_ranges = std::make_unique<UserRangeObserver>(
        tracer, m_steps, settings.glueRanges, [this](const StepInfo& step) { stepClosed(step); });
    profile::noteProcess(settings.tracePrefix, profile::ProcessNoteKind::kStarted, rank,
                         profile::tracePath(settings.tracePrefix, rank));
}

InjectedCapture::~InjectedCapture() { finish(); }

void InjectedCapture::recordLoss(double loss) {
    std::lock_guard<std::mutex> lock(m_stepMutex);
    if (m_lossPlace == LossPlace::kUnknown)
        m_lossPlace = m_stepsClosed == 0 ? LossPlace::kInStep : LossPlace::kAfterStep;
    if (m_lossPlace == LossPlace::kInStep || !m_lastClosed) {
        m_openStepLoss = loss;
        return;
    }
    // The step that ended last: its row again, with the loss (INSERT OR REPLACE).
    if (!m_lastClosedHasLoss) ++m_lossesReported;
    m_lastClosedHasLoss = true;
    m_lastClosed->loss = loss;
    m_session->writer().recordStep(StepRecord{m_run, *m_lastClosed});
}

void InjectedCapture::stepClosed(const StepInfo& step) {
    std::lock_guard<std::mutex> lock(m_stepMutex);
    const bool hasLoss = m_lossPlace == LossPlace::kInStep && m_openStepLoss.has_value();
    writeStep(step, hasLoss ? *m_openStepLoss : 0.0);
    if (hasLoss) ++m_lossesReported;
    m_openStepLoss.reset();
    m_lastClosedHasLoss = hasLoss;
    ++m_stepsClosed;
}

void InjectedCapture::writeStep(const StepInfo& step, double loss) {
    StepInfo info = step;
    info.loss = loss;
    info.block = m_settings.block;
    m_lastClosed = info;
    m_session->tracer().endStep(StepRecord{m_run, info});
}

void InjectedCapture::noteToggle(const std::string& name, bool applied, const std::string& detail) {
    std::lock_guard<std::mutex> lock(m_toggleMutex);
    m_toggles.push_back(
        fmt::format("{}: {} ({})", name, applied ? "applied" : "not applied", detail));
    if (applied) ++m_togglesApplied;
}

void InjectedCapture::finish() {
    std::lock_guard<std::mutex> lock(m_finishMutex);
    if (m_finished) return;
    m_finished = true;
    try {
        if (std::optional<StepInfo> whole = m_steps.finish(Clock::nowNs())) stepClosed(*whole);
        m_ranges.reset();
        m_session->tracer().setStepDetector(nullptr);
        TraceWriter& writer = m_session->writer();
        writer.recordDiagnostic(DiagnosticRecord{m_run,
                                                 diagnosticName(DiagnosticId::kProfileStepSource),
                                                 m_steps.stepsFound(), toString(m_steps.source())});
        writer.recordDiagnostic(
            DiagnosticRecord{m_run, diagnosticName(DiagnosticId::kProfileLosses), m_lossesReported,
                             "steps whose loss the program reported"});
        {
            std::lock_guard<std::mutex> toggles(m_toggleMutex);
            if (!m_toggles.empty()) {
                std::string detail;
                for (const std::string& t : m_toggles) detail += (detail.empty() ? "" : "; ") + t;
                writer.recordDiagnostic(
                    DiagnosticRecord{m_run, diagnosticName(DiagnosticId::kProgramToggles),
                                     m_togglesApplied, detail});
            }
        }
        writer.endRun(m_run, RunStatus::kComplete);
        m_session->close();
        profile::noteProcess(m_settings.tracePrefix, profile::ProcessNoteKind::kFinished, m_rank,
                             "");
    } catch (const std::exception& e) {
        // The program is ending: what was committed stays (the launcher stores the run aborted).
        std::fprintf(stderr, "glueprof: the capture could not finish its trace: %s\n", e.what());
        profile::noteProcess(m_settings.tracePrefix, profile::ProcessNoteKind::kFailed, m_rank,
                             std::string("could not finish its trace: ") + e.what());
    }
}

}  // namespace glueprof
