#pragma once
// One clock for every event: int64 nanoseconds on one timeline. By default the steady clock
// (CLOCK_MONOTONIC), read through the CPU's invariant time-stamp counter where there is one (one
// instruction; mapped onto the steady clock and re-anchored every 50 ms, so it stays within
// microseconds of it and never steps back; GLUEPROF_CLOCK=steady reads clock_gettime instead).
// While CUPTI captures, profiler/cupti installs CUPTI's timestamp (cuptiGetTimestamp) as the
// source, so host ranges, aten ops and device records share one timeline.
#include <cstdint>

namespace glueprof {

using TimestampNs = std::int64_t;
constexpr double kNsPerMs = 1e6;  // nanoseconds to the milliseconds reports print

class Clock {
  public:
    using Source = TimestampNs (*)();
    static TimestampNs nowNs();
    // The same reading for a caller that keeps the calling thread's lastReadingOfThisThread() at
    // hand (the op observer, per op): the thread-local is not looked up again.
    static TimestampNs nowNs(TimestampNs& lastReadingOfThisThread);
    // Where the calling thread's last time-stamp-counter reading is kept: each thread's readings
    // never go back. Stays valid for the thread's life.
    static TimestampNs& lastReadingOfThisThread();
    // Installs `source` (nullptr: the steady clock again). Returns the previous one.
    static Source useSource(Source source);
    // The steady clock itself, through clock_gettime.
    static TimestampNs steadyNs();
    // Whether nowNs() reads the steady clock through the time-stamp counter (calibrating it on
    // first use, about 2 ms).
    static bool readsTimeStampCounter();
};

}  // namespace glueprof
