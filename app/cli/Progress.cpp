#include "app/cli/Progress.h"

#include <unistd.h>

#include <algorithm>
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

ProgressCallback terminalProgress(const std::string& what, int index, int count,
                                  std::chrono::steady_clock::time_point suiteStart) {
    if (isatty(STDERR_FILENO) == 0) return {};
    const auto toggleStart = std::chrono::steady_clock::now();
    return [what, index, count, suiteStart, toggleStart](const StepProgress& p) {
        using Seconds = std::chrono::duration<double>;
        const auto now = std::chrono::steady_clock::now();
        const double inToggle = Seconds(now - toggleStart).count();
        const double beforeToggle = Seconds(toggleStart - suiteStart).count();
        // This toggle's rest at its own pace, the toggles after it at the suite's average.
        const double thisToggle = p.done > 0 ? inToggle / p.done * p.total : 0.0;
        const double perToggle = index > 0 ? (beforeToggle + thisToggle) / (index + 1) : thisToggle;
        const double eta = (thisToggle - inToggle) + perToggle * (count - index - 1);
        std::fprintf(stderr, "\r%s: %-9s step %d/%d, ETA %.0f s   ", what.c_str(), p.arm.c_str(),
                     p.done, p.total, std::max(0.0, eta));
        std::fflush(stderr);
    };
}

void printNotice(const std::string& line) { std::cerr << line << "\n"; }

}  // namespace glueprof::cli
