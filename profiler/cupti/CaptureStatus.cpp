// CaptureStatus::summary and blockWithoutDevice, shared by the CUPTI build and the build without
// CUPTI headers.
#include <fmt/format.h>

#include "profiler/cupti/CudaDriver.h"
#include "profiler/cupti/GpuCapture.h"

namespace glueprof::cupti {

bool CaptureStatus::blockWithoutDevice() {
    const CudaDriverStatus& driver = cudaDriverStatus();
    if (driver.reason.empty()) return false;
    blocker = driver.driverLoaded ? Blocker::kNoDevice : Blocker::kNoDriver;
    reason = driver.reason;
    return true;
}

std::string CaptureStatus::summary() const {
    if (active) {
        std::string text = fmt::format("capturing with {} (CUPTI API {}; built with {})",
                                       libraryPath, runtimeVersion, headerVersion);
        for (const std::string& note : notes) text += "; " + note;
        return text;
    }
    return "off: " + reason + "; host ranges and aten ops are still recorded";
}

}  // namespace glueprof::cupti
