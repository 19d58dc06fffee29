// profiler/cupti built with cupti.h: probe and start the real capture.
#include "profiler/cupti/GpuCapture.h"

#include <fmt/format.h>

#include <cstdlib>

#include "profiler/cupti/CuptiLibrary.h"
#include "profiler/cupti/CuptiSession.h"

namespace glueprof::cupti {

CaptureStatus probeCapture() {
    CaptureStatus status;
    status.headerVersion = CUPTI_API_VERSION;
    // The same load and version gate as a run's (CuptiLibrary::load), so doctor and the run agree.
    CuptiLibrary library = CuptiLibrary::load();
    if (!library.ok()) {
        status.blocker = library.tooOld() ? CaptureStatus::Blocker::kOldLibrary
                                          : CaptureStatus::Blocker::kNoLibrary;
        status.reason = library.error();
        return status;
    }
    status.libraryPath = library.path();
    status.runtimeVersion = library.version();
    std::string other = otherCuptiClient([](const char* name) {
        const char* value = std::getenv(name);
        return std::string(value != nullptr ? value : "");
    });
    if (!other.empty()) {
        status.blocker = CaptureStatus::Blocker::kOtherProfiler;
        status.reason = std::move(other);
        return status;
    }
    if (status.blockWithoutDevice()) {
        return status;
    }
    status.reason = fmt::format(
        "{} (CUPTI API {}, {}) and the driver are present; capture starts with a CUDA "
        "run",
        library.path(), status.runtimeVersion, toString(library.origin()));
    return status;
}

std::unique_ptr<DeviceCapture> startCapture(CaptureEnvironment env, CaptureStatus& status) {
    return CuptiSession::start(std::move(env), status);
}

}  // namespace glueprof::cupti
