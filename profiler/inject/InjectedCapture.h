#pragma once
// InjectedCapture: glueprof's capture inside a program `glueprof profile` started — the same stack
// the reference trainer records through (CaptureSession: writer, host tracer, GPU capture where a
// GPU is, the aten op observer), plus the program's own ranges (UserRangeObserver) and its steps
// (StepDetector). It records one run into this rank's trace file; the launcher moves it into the
// user's database once the program has ended.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "profiler/host/StepDetector.h"
#include "profiler/inject/LauncherWatch.h"
#include "profiler/inject/ProfileProtocol.h"
#include "profiler/session/CaptureSession.h"

namespace glueprof {

class UserRangeObserver;

class InjectedCapture {
  public:
    explicit InjectedCapture(const profile::ProfileSettings& settings);
    ~InjectedCapture();
    InjectedCapture(const InjectedCapture&) = delete;
    InjectedCapture& operator=(const InjectedCapture&) = delete;

    // The loss the program reports (glueprof.record_loss in Python). Where a loop reports it is
    // told by its first report: within the first step (before it ends), each loss belongs to the
    // step it is reported in; after the first step's end, to the step that ended last (a loop that
    // logs loss.item() after optimizer.step()). That step's row is written again with it.
    void recordLoss(double loss);

    // A program toggle of `--try` applied or not, and how or why: stored with the run as the
    // diagnostic program_toggles when it ends.
    void noteToggle(const std::string& name, bool applied, const std::string& detail);

    // The program is ending: the whole run becomes one step when no boundary was seen, the step
    // source is stored, the run ends complete and the file is closed. Idempotent; never throws.
    void finish();

  private:
    enum class LossPlace { kUnknown, kInStep, kAfterStep };
    // A step closed (the step detector's sink): its row is written at once (a program killed
    // later keeps it), with the loss reported in it when losses come within their step.
    void stepClosed(const StepInfo& step);
    void writeStep(const StepInfo& step, double loss);  // the caller holds m_stepMutex

    profile::ProfileSettings m_settings;
    int m_rank = 0;
    LauncherWatch m_launcherWatch;  // this process ends when glueprof does
    std::unique_ptr<CaptureSession> m_session;
    RunId m_run = 0;
    StepDetector m_steps;
    std::mutex m_toggleMutex;
    std::vector<std::string> m_toggles;  // "NAME: applied (how)" / "NAME: not applied (why)"
    std::int64_t m_togglesApplied = 0;
    std::unique_ptr<UserRangeObserver> m_ranges;
    std::mutex m_stepMutex;
    LossPlace m_lossPlace = LossPlace::kUnknown;
    std::optional<double> m_openStepLoss;  // kInStep: reported in the step now open
    std::optional<StepInfo> m_lastClosed;  // as written
    bool m_lastClosedHasLoss = false;
    std::int64_t m_stepsClosed = 0;
    std::int64_t m_lossesReported = 0;  // steps whose row holds a reported loss
    std::mutex m_finishMutex;
    bool m_finished = false;
};

}  // namespace glueprof
