// profiler/cupti built without cupti.h (no CUDA toolkit at build time): the capture cannot run, and
// says so.
#include "profiler/cupti/GpuCapture.h"

namespace glueprof::cupti {

namespace {
constexpr const char* kReason =
    "glueprof was built without CUPTI headers (cupti.h not found beside torch's CUDA wheels, "
    "under CUDA_HOME or in /usr/local/cuda): build against a CUDA torch, or install the CUDA "
    "toolkit, and rebuild";
}  // namespace

CaptureStatus probeCapture() {
    CaptureStatus status;
    status.blocker = CaptureStatus::Blocker::kNoHeaders;
    status.reason = kReason;
    return status;
}

std::unique_ptr<DeviceCapture> startCapture(CaptureEnvironment /*env*/, CaptureStatus& status) {
    status = probeCapture();
    return nullptr;
}

}  // namespace glueprof::cupti
