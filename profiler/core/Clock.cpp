#include "profiler/core/Clock.h"

#include <atomic>
#include <chrono>

namespace glueprof {

namespace {
std::atomic<Clock::Source> g_source{nullptr};
}  // namespace

TimestampNs Clock::steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

TimestampNs Clock::nowNs() {
    const Source source = g_source.load(std::memory_order_acquire);
    return source != nullptr ? source() : steadyNs();
}

Clock::Source Clock::useSource(Source source) {
    return g_source.exchange(source, std::memory_order_acq_rel);
}

}  // namespace glueprof
