#pragma once
// GPU activity capture around a traced training session: for a CUDA run, starts CUPTI
// (profiler/cupti) and attaches it to the HostTracer, so ops correlate with their kernels and every
// step end flushes; for a CPU run, or when CUPTI cannot start, says why. The summary goes into each
// run's environment (`gpu_capture`) and the header of `run`/`ab`. Destroying it writes what is
// left. Used by `glueprof run`, `glueprof ab` and the desktop app's Run A/B.
#include <memory>
#include <string>

#include "profiler/cupti/GpuCapture.h"
#include "profiler/host/HostTracer.h"
#include "reference_trainer/TrainConfig.h"

namespace glueprof {

class CaptureScope {
  public:
    CaptureScope(const TrainConfig& config, HostTracer& tracer);
    ~CaptureScope();
    CaptureScope(const CaptureScope&) = delete;
    CaptureScope& operator=(const CaptureScope&) = delete;

    bool active() const { return m_capture != nullptr; }
    const cupti::CaptureStatus& status() const { return m_status; }
    std::string summary() const { return m_status.summary(); }

  private:
    HostTracer& m_tracer;
    cupti::CaptureStatus m_status;
    std::unique_ptr<DeviceCapture> m_capture;
};

}  // namespace glueprof
