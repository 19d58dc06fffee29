#include "app/cli/Progress.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace glueprof::cli {

ProgressCallback terminalProgress(const std::string& what) {
    if (isatty(STDERR_FILENO) == 0) return {};
    return [what](const StepProgress& p) {
        std::fprintf(stderr, "\r%s: %-9s step %d/%d   ", what.c_str(), p.arm.c_str(), p.done,
                     p.total);
        std::fflush(stderr);
    };
}

void endProgressLine() {
    if (isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "\r%60s\r", "");
}

void printNotice(const std::string& line) { std::cerr << line << "\n"; }

}  // namespace glueprof::cli
