#pragma once
// One traced session of the reference trainer: the trace database's writer, the host tracer, GPU
// activity capture (CUPTI, on CUDA runs) and the aten op observer, started in that order and
// stopped in reverse, so no layer outlives what it writes through. Every recording path — `glueprof
// run`, `ab`, `simulate --preset` and the desktop app's Run A/B — records through one of these and
// nothing else builds that stack. The capture status (capturing with ..., or off and why) is
// runtime state: it goes into each run's environment (`gpu_capture`), not into the trainer's
// configuration. Torch-free header.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "profiler/cupti/GpuCapture.h"
#include "profiler/host/HostTracer.h"

namespace glueprof {

class CaptureSession {
  public:
    // What the session tells its user once started: that the database's schema was upgraded (and
    // where the old file is kept), and "GPU capture: ..." (capturing with ..., or off and why).
    using Notice = std::function<void(const std::string& line)>;

    // Opens (or creates) `db` and starts tracing; `device` "cuda" also starts GPU capture.
    CaptureSession(const std::string& db, const std::string& device, const Notice& notice = {});
    ~CaptureSession();  // stops everything; a writer failure is lost here: call close()
    CaptureSession(const CaptureSession&) = delete;
    CaptureSession& operator=(const CaptureSession&) = delete;

    HostTracer& tracer();
    TraceWriter& writer();
    std::string captureSummary() const { return m_status.summary(); }
    // What tracing adds per recorded op on this machine, measured as the session started
    // (profiler/torch_ops/TracingCost.h); nullopt when it could not be measured.
    std::optional<double> tracingCostNsPerOp() const { return m_tracingCostNsPerOp; }

    // Stops GPU capture and op observation (writing their last records), then flushes and closes
    // the database; rethrows a writer failure. Idempotent.
    void close();

  private:
    struct Stack;
    cupti::CaptureStatus m_status;
    std::optional<double> m_tracingCostNsPerOp;
    std::unique_ptr<Stack> m_stack;
};

}  // namespace glueprof
