#include "reference_trainer/CaptureScope.h"

namespace glueprof {

CaptureScope::CaptureScope(const TrainConfig& config, HostTracer& tracer) : m_tracer(tracer) {
    if (config.device != "cuda") {
        m_status.blocker = cupti::CaptureStatus::Blocker::kCpuRun;
        m_status.reason = "a CPU run (--device cpu): there is no GPU activity to capture";
        return;
    }
    cupti::CaptureEnvironment env;
    env.writer = &tracer.writer();
    env.currentRun = [&tracer] { return tracer.run(); };
    env.laneOfThread = [&tracer](RunId run, std::int64_t tid) {
        return tracer.laneForOsThread(run, tid);
    };
    m_capture = cupti::startCapture(std::move(env), m_status);
    if (m_capture) tracer.setDeviceCapture(m_capture.get());
}

CaptureScope::~CaptureScope() {
    m_tracer.setDeviceCapture(nullptr);
    m_capture.reset();  // flushes and writes the last records
}

}  // namespace glueprof
