#include "profiler/core/Clock.h"

#include <chrono>

namespace glueprof {

TimestampNs Clock::nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace glueprof
