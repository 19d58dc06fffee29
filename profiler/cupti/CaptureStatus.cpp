// CaptureStatus::summary, shared by the CUPTI build and the build without CUPTI headers.
#include <fmt/format.h>

#include "profiler/cupti/GpuCapture.h"

namespace glueprof::cupti {

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
