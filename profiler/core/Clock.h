#pragma once
// One clock for every event: int64 nanoseconds on a monotonic timeline.
// NOTE(cupti): when CUPTI is active, host events must read CUPTI's timestamp instead
// (profiler/cupti installs it); until then the steady clock is the source.
#include <cstdint>

namespace glueprof {

using TimestampNs = std::int64_t;

class Clock {
public:
    static TimestampNs nowNs();
};

}  // namespace glueprof
