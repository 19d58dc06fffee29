#include "app/cli/ErrorLine.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace glueprof::cli {

std::string messagePrefix() {
    const char* rank = std::getenv("RANK");
    const char* world = std::getenv("WORLD_SIZE");
    if (rank == nullptr || world == nullptr || std::string(world) == "1") return "glueprof: ";
    return fmt::format("glueprof (rank {} of {}): ", rank, world);
}

void endProgressLine() {
    if (isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "\r%60s\r", "");
}

}  // namespace glueprof::cli
