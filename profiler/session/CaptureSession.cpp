#include "profiler/session/CaptureSession.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/cuda.h>

#include "profiler/torch_ops/OpObserver.h"
#include "profiler/torch_ops/TracingCost.h"

namespace glueprof {

// Members in construction order; destruction runs in reverse (observer, capture, tracer, writer).
struct CaptureSession::Stack {
    TraceWriter writer;
    HostTracer tracer;
    std::unique_ptr<DeviceCapture> capture;
    std::unique_ptr<OpObserver> observer;

    explicit Stack(const std::string& db) : writer(db), tracer(writer) {}

    void stopCapture() {
        observer.reset();
        tracer.setDeviceCapture(nullptr);
        capture.reset();  // flushes and writes the last records
    }
};

namespace {

std::unique_ptr<DeviceCapture> startGpuCapture(const std::string& device, HostTracer& tracer,
                                               cupti::CaptureStatus& status) {
    if (device != "cuda") {
        status.blocker = cupti::CaptureStatus::Blocker::kCpuRun;
        status.reason = "a CPU run (--device cpu): there is no GPU activity to capture";
        return nullptr;
    }
    cupti::CaptureEnvironment env;
    env.writer = &tracer.writer();
    env.currentRun = [&tracer] { return tracer.run(); };
    env.laneOfThread = [&tracer](RunId run, std::int64_t tid) {
        return tracer.laneForOsThread(run, tid);
    };
    // Before each step's flush: the step's device work done on every GPU this process uses (a
    // pipeline spreads its workers over them; a rank has its own), so its records are complete.
    // A GPU without a context has no work, and synchronizing it would create one: a rank per GPU
    // would then hold a context on every GPU.
    env.synchronizeDevice = [] {
        const auto devices = static_cast<std::int64_t>(torch::cuda::device_count());
        for (std::int64_t d = 0; d < devices; ++d) {
            if (at::detail::getCUDAHooks().hasPrimaryContext(static_cast<c10::DeviceIndex>(d)))
                torch::cuda::synchronize(d);
        }
    };
    std::unique_ptr<DeviceCapture> capture = cupti::startCapture(std::move(env), status);
    if (capture) tracer.setDeviceCapture(capture.get());
    return capture;
}

}  // namespace

CaptureSession::CaptureSession(const std::string& db, const std::string& device,
                               const Notice& notice)
    : m_stack(std::make_unique<Stack>(db)) {
    m_tracingCostNsPerOp = measureTracingCostNsPerOp();  // before the session's own observer
    m_stack->capture = startGpuCapture(device, m_stack->tracer, m_status);
    m_stack->observer = std::make_unique<OpObserver>(m_stack->tracer);
    if (notice) {
        if (!m_stack->writer.upgradeNotice().empty()) notice(m_stack->writer.upgradeNotice());
        notice("GPU capture: " + captureSummary());
    }
}

CaptureSession::~CaptureSession() {
    if (m_stack) m_stack->stopCapture();
}

HostTracer& CaptureSession::tracer() { return m_stack->tracer; }

TraceWriter& CaptureSession::writer() { return m_stack->writer; }

void CaptureSession::close() {
    m_stack->stopCapture();
    m_stack->writer.close();
}

}  // namespace glueprof
