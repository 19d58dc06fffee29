#include "profiler/core/Clock.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__x86_64__)
#include <cpuid.h>
#include <pthread.h>
#include <sched.h>
#include <x86intrin.h>
#endif

namespace glueprof {

namespace {

std::atomic<Clock::Source> g_source{nullptr};

#if defined(__x86_64__)

// The steady clock read through the CPU's time-stamp counter, as Tracy and Kineto read theirs: one
// `rdtsc` (about 12 ns here) instead of a vDSO clock_gettime (about 30 ns), twice per traced op.
// The counter is mapped onto the steady clock by a line through an anchor (ticks, ns) at the rate
// measured since the first calibration, plus a correction spread over the first interval after
// the anchor only (at most 0.1% of the rate). Whoever reads the clock 50 ms of ticks after the
// anchor re-anchors it against a fresh (counter, clock_gettime) pair: the new line starts where the
// old one stood and its correction takes out the error against the steady clock over the next
// 50 ms (an error of over 1 ms behind is stepped over; ahead, it is slewed, never stepped back).
// Each thread's readings never go back (a thread preempted across a re-anchor is held at its last
// reading). Used only where the CPU says its counter is invariant and the kernel keeps time with it
// (clocksource tsc: the counters of all CPUs agree), and the first calibration is sane;
// GLUEPROF_CLOCK=steady turns it off.
constexpr std::int64_t kCalibrationNs = 2'000'000;  // the first rate: over 2 ms
constexpr std::int64_t kReanchorNs = 50'000'000;    // then re-anchored every 50 ms of ticks
constexpr std::int64_t kStepBeyondNs = 1'000'000;   // this far behind: step forward
constexpr double kMaxCorrection = 1e-3;             // the correction: at most 0.1% of the rate
constexpr int kRateShift = 32;                      // rates: ns per tick, 32.32 fixed point

enum class TscState : int { kUnknown, kCalibrating, kUsable, kUnusable };

struct TicksAndNs {
    std::uint64_t ticks = 0;
    TimestampNs ns = 0;
};

struct TscMapping {
    std::uint64_t anchorTicks;
    TimestampNs anchorNs;
    std::uint64_t rateQ32;       // ns per tick
    std::int64_t correctionQ32;  // added per tick over the first interval after the anchor
};

// The mapping, published under a sequence lock: readers retry while a re-anchor writes it.
std::atomic<int> g_tscState{static_cast<int>(TscState::kUnknown)};
std::atomic<std::uint32_t> g_sequence{0};
std::atomic<std::uint64_t> g_anchorTicks{0};
std::atomic<std::int64_t> g_anchorNs{0};
std::atomic<std::uint64_t> g_rateQ32{0};
std::atomic<std::int64_t> g_correctionQ32{0};
std::atomic<std::uint64_t> g_intervalTicks{0};
// Who re-anchors, on its own cache line: every reader looks at it once an interval is over.
alignas(64) std::atomic<bool> g_reanchoring{false};
// The long baseline the rate is measured over: the first pair (written before kUsable), moved
// only by the re-anchoring caller (one at a time, under g_reanchoring).
TicksAndNs g_first;

thread_local TimestampNs t_lastReading = 0;

bool kernelKeepsTimeWithTheCounter() {
    std::FILE* file =
        std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (file == nullptr) return false;
    char name[32] = {};
    const bool read = std::fgets(name, sizeof name, file) != nullptr;
    std::fclose(file);
    return read && std::strncmp(name, "tsc", 3) == 0 && (name[3] == '\n' || name[3] == '\0');
}

bool counterIsInvariant() {
    if (const char* choice = std::getenv("GLUEPROF_CLOCK");
        choice && std::strcmp(choice, "steady") == 0)
        return false;
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
    __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
    return (edx & (1u << 8)) != 0 && kernelKeepsTimeWithTheCounter();
}

// A (counter, steady clock) pair read as close together as the machine allows: the narrowest of
// eight tries, the counter taken at the middle of its window.
TicksAndNs readPair() {
    TicksAndNs best;
    std::uint64_t bestWindow = ~std::uint64_t{0};
    for (int attempt = 0; attempt < 8; ++attempt) {
        _mm_lfence();
        const std::uint64_t before = __rdtsc();
        _mm_lfence();
        const TimestampNs ns = Clock::steadyNs();
        _mm_lfence();
        const std::uint64_t after = __rdtsc();
        if (after - before < bestWindow) {
            bestWindow = after - before;
            best = TicksAndNs{before + (after - before) / 2, ns};
        }
    }
    return best;
}

bool saneRate(double nsPerTick) { return nsPerTick >= 0.05 && nsPerTick <= 50.0; }

// Rates between double and 32.32 fixed point.
constexpr double kQ32One = static_cast<double>(std::uint64_t{1} << kRateShift);
std::uint64_t toQ32(double nsPerTick) { return static_cast<std::uint64_t>(nsPerTick * kQ32One); }
std::int64_t toSignedQ32(double nsPerTick) {
    return static_cast<std::int64_t>(nsPerTick * kQ32One);
}
double fromQ32(std::uint64_t q32) { return static_cast<double>(q32) / kQ32One; }

void publish(const TscMapping& mapping) {
    const std::uint32_t sequence = g_sequence.load(std::memory_order_relaxed);
    g_sequence.store(sequence + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    g_anchorTicks.store(mapping.anchorTicks, std::memory_order_relaxed);
    g_anchorNs.store(mapping.anchorNs, std::memory_order_relaxed);
    g_rateQ32.store(mapping.rateQ32, std::memory_order_relaxed);
    g_correctionQ32.store(mapping.correctionQ32, std::memory_order_relaxed);
    g_sequence.store(sequence + 2, std::memory_order_release);
}

TscMapping readMapping() {
    for (;;) {
        const std::uint32_t before = g_sequence.load(std::memory_order_acquire);
        if ((before & 1u) != 0) {
            _mm_pause();
            continue;
        }
        TscMapping mapping{g_anchorTicks.load(std::memory_order_relaxed),
                           g_anchorNs.load(std::memory_order_relaxed),
                           g_rateQ32.load(std::memory_order_relaxed),
                           g_correctionQ32.load(std::memory_order_relaxed)};
        std::atomic_thread_fence(std::memory_order_acquire);
        if (g_sequence.load(std::memory_order_relaxed) == before) return mapping;
    }
}

TimestampNs mapTicks(const TscMapping& mapping, std::uint64_t ticks) {
    if (ticks < mapping.anchorTicks) {  // read before an anchor another thread just published
        const unsigned __int128 back =
            static_cast<unsigned __int128>(mapping.anchorTicks - ticks) * mapping.rateQ32;
        return mapping.anchorNs - static_cast<TimestampNs>(back >> kRateShift);
    }
    const std::uint64_t elapsed = ticks - mapping.anchorTicks;
    const unsigned __int128 base = static_cast<unsigned __int128>(elapsed) * mapping.rateQ32;
    const std::uint64_t interval = g_intervalTicks.load(std::memory_order_relaxed);
    const __int128 correction =
        static_cast<__int128>(elapsed < interval ? elapsed : interval) * mapping.correctionQ32;
    return mapping.anchorNs + static_cast<TimestampNs>(base >> kRateShift) +
           static_cast<TimestampNs>(correction >> kRateShift);
}

// The first rate, over kCalibrationNs of spinning; false where the counter does not advance at a
// believable rate (20 MHz to 20 GHz).
bool calibrate() {
    if (!counterIsInvariant()) return false;
    const TicksAndNs first = readPair();
    TicksAndNs second = readPair();
    while (second.ns - first.ns < kCalibrationNs) second = readPair();
    if (second.ticks <= first.ticks) return false;
    const double nsPerTick =
        static_cast<double>(second.ns - first.ns) / static_cast<double>(second.ticks - first.ticks);
    if (!saneRate(nsPerTick)) return false;
    g_first = first;
    g_intervalTicks.store(static_cast<std::uint64_t>(static_cast<double>(kReanchorNs) / nsPerTick),
                          std::memory_order_relaxed);
    publish(TscMapping{second.ticks, second.ns, toQ32(nsPerTick), 0});
    return true;
}

// Re-anchors the line at a fresh pair (unless another caller just did): the new line starts where
// the current one stands, at the rate measured since the first pair, and its correction removes
// the error against the steady clock over the next interval.
void reanchor() {
    const TscMapping current = readMapping();
    const std::uint64_t interval = g_intervalTicks.load(std::memory_order_relaxed);
    const std::uint64_t now = __rdtsc();
    if (now >= current.anchorTicks && now - current.anchorTicks <= interval) return;
    const TicksAndNs pair = readPair();
    const TimestampNs mapped = mapTicks(current, pair.ticks);
    const TimestampNs error = pair.ns - mapped;  // > 0: the line is behind the steady clock
    double nsPerTick = pair.ticks > g_first.ticks
                           ? static_cast<double>(pair.ns - g_first.ns) /
                                 static_cast<double>(pair.ticks - g_first.ticks)
                           : 0.0;
    if (!saneRate(nsPerTick)) {  // the counter went back or jumped: measure from here on
        nsPerTick = fromQ32(current.rateQ32);
        g_first = pair;
    }
    if (error > kStepBeyondNs) {  // far behind (a counter that stopped): step forward
        g_first = pair;
        publish(TscMapping{pair.ticks, pair.ns, current.rateQ32, 0});
        return;
    }
    double perTick = static_cast<double>(error) / static_cast<double>(interval);
    const double limit = nsPerTick * kMaxCorrection;
    if (perTick > limit) perTick = limit;
    if (perTick < -limit) perTick = -limit;
    publish(TscMapping{pair.ticks, mapped, toQ32(nsPerTick), toSignedQ32(perTick)});
}

void waitWhileCalibrating() {
    int spins = 0;
    while (g_tscState.load(std::memory_order_acquire) == static_cast<int>(TscState::kCalibrating)) {
        if (++spins < 64) {
            _mm_pause();
        } else {
            sched_yield();
        }
    }
}

// A process forked while the parent calibrated or re-anchored gets the state as it was at that
// moment, with no thread to finish it: the child starts over.
void startOverInChild() {
    g_tscState.store(static_cast<int>(TscState::kUnknown), std::memory_order_relaxed);
    g_sequence.store(0, std::memory_order_relaxed);
    g_reanchoring.store(false, std::memory_order_relaxed);
    t_lastReading = 0;
}

bool tscUsable() {
    const int state = g_tscState.load(std::memory_order_acquire);
    if (state == static_cast<int>(TscState::kUsable)) return true;
    if (state == static_cast<int>(TscState::kUnusable)) return false;
    int expected = static_cast<int>(TscState::kUnknown);
    if (g_tscState.compare_exchange_strong(expected, static_cast<int>(TscState::kCalibrating),
                                           std::memory_order_acq_rel)) {
        static std::once_flag forkHandler;
        std::call_once(forkHandler, [] { pthread_atfork(nullptr, nullptr, &startOverInChild); });
        const bool usable = calibrate();
        g_tscState.store(static_cast<int>(usable ? TscState::kUsable : TscState::kUnusable),
                         std::memory_order_release);
        return usable;
    }
    waitWhileCalibrating();
    return g_tscState.load(std::memory_order_acquire) == static_cast<int>(TscState::kUsable);
}

TimestampNs tscNowNs() {
    const std::uint64_t ticks = __rdtsc();
    TscMapping mapping = readMapping();
    const std::uint64_t interval = g_intervalTicks.load(std::memory_order_relaxed);
    const bool due = ticks >= mapping.anchorTicks ? ticks - mapping.anchorTicks > interval
                                                  : mapping.anchorTicks - ticks > interval;
    if (due && !g_reanchoring.load(std::memory_order_relaxed) &&
        !g_reanchoring.exchange(true, std::memory_order_acquire)) {
        reanchor();
        g_reanchoring.store(false, std::memory_order_release);
        mapping = readMapping();
    }
    TimestampNs now = mapTicks(mapping, ticks);
    if (now < t_lastReading) now = t_lastReading;
    t_lastReading = now;
    return now;
}

#endif  // __x86_64__

}  // namespace

TimestampNs Clock::steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

TimestampNs Clock::nowNs() {
    const Source source = g_source.load(std::memory_order_acquire);
    if (source != nullptr) return source();
#if defined(__x86_64__)
    if (tscUsable()) return tscNowNs();
#endif
    return steadyNs();
}

bool Clock::readsTimeStampCounter() {
#if defined(__x86_64__)
    return tscUsable();
#else
    return false;
#endif
}

Clock::Source Clock::useSource(Source source) {
    return g_source.exchange(source, std::memory_order_acq_rel);
}

}  // namespace glueprof
