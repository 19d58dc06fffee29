#include "profiler/core/StreamLane.h"

#include <fmt/format.h>

namespace glueprof {

std::string streamLaneName(std::int64_t device, std::int64_t stream, const std::string& process) {
    std::string name = stream < 0 ? fmt::format("GPU {} (no stream)", device)
                                  : fmt::format("GPU {} stream {}", device, stream);
    if (!process.empty()) name += fmt::format(" (process {})", process);
    return name;
}

}  // namespace glueprof
