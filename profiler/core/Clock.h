#pragma once
// One clock for every event: int64 nanoseconds on one timeline. By default the steady clock; while
// CUPTI captures, profiler/cupti installs CUPTI's timestamp (cuptiGetTimestamp) as the source, so
// host ranges, aten ops and device records share one timeline.
#include <cstdint>

namespace glueprof {

using TimestampNs = std::int64_t;

class Clock {
  public:
    using Source = TimestampNs (*)();
    static TimestampNs nowNs();
    // Installs `source` (nullptr: the steady clock again). Returns the previous one.
    static Source useSource(Source source);
    static TimestampNs steadyNs();
};

}  // namespace glueprof
