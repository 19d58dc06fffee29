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
// The calling thread's last counter reading: its readings never go back.
thread_local TimestampNs t_lastReading = 0;

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
    std::uint64_t rateQ32;   // ns per tick
    std::uint64_t slopeQ32;  // ns per tick over the first interval: the rate plus the correction
};

// The slope of a line of RATE whose CORRECTION (signed, at most 0.1% of the rate) is added per
// tick.
std::uint64_t slopeOf(std::uint64_t rateQ32, std::int64_t correctionQ32) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(rateQ32) + correctionQ32);
}

// The mapping, published under a sequence lock: readers retry while a re-anchor writes it.
std::atomic<int> g_tscState{static_cast<int>(TscState::kUnknown)};
std::atomic<std::uint32_t> g_sequence{0};
std::atomic<std::uint64_t> g_anchorTicks{0};
std::atomic<std::int64_t> g_anchorNs{0};
std::atomic<std::uint64_t> g_rateQ32{0};
std::atomic<std::uint64_t> g_slopeQ32{0};
std::atomic<std::uint64_t> g_intervalTicks{0};
// Who re-anchors, on its own cache line: every reader looks at it once an interval is over.
alignas(64) std::atomic<bool> g_reanchoring{false};
// The long baseline the rate is measured over: the first pair (written before kUsable), moved
// only by the re-anchoring caller (one at a time, under g_reanchoring).
TicksAndNs g_first;

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
    g_slopeQ32.store(mapping.slopeQ32, std::memory_order_relaxed);
    g_sequence.store(sequence + 2, std::memory_order_release);
}

// Read twice per traced op: inlined into the reading, as mapTicks is.
[[gnu::always_inline]] inline TscMapping readMapping() {
    for (;;) {
        const std::uint32_t before = g_sequence.load(std::memory_order_acquire);
        if ((before & 1u) != 0) {
            _mm_pause();
            continue;
        }
        TscMapping mapping{g_anchorTicks.load(std::memory_order_relaxed),
                           g_anchorNs.load(std::memory_order_relaxed),
                           g_rateQ32.load(std::memory_order_relaxed),
                           g_slopeQ32.load(std::memory_order_relaxed)};
        std::atomic_thread_fence(std::memory_order_acquire);
        if (g_sequence.load(std::memory_order_relaxed) == before) return mapping;
    }
}

// TICKS on the line of MAPPING: at the slope over the first INTERVAL ticks after the anchor (where
// nearly every reading falls: one multiply), at the rate before the anchor and beyond the interval.
[[gnu::always_inline]] inline TimestampNs mapTicks(const TscMapping& mapping, std::uint64_t ticks,
                                                   std::uint64_t interval) {
    using Wide = unsigned __int128;
    if (ticks < mapping.anchorTicks) [[unlikely]] {  // read before an anchor just published
        const Wide back = static_cast<Wide>(mapping.anchorTicks - ticks) * mapping.rateQ32;
        return mapping.anchorNs - static_cast<TimestampNs>(back >> kRateShift);
    }
    const std::uint64_t elapsed = ticks - mapping.anchorTicks;
    if (elapsed <= interval) [[likely]] {
        return mapping.anchorNs +
               static_cast<TimestampNs>((static_cast<Wide>(elapsed) * mapping.slopeQ32) >>
                                        kRateShift);
    }
    const Wide corrected = static_cast<Wide>(interval) * mapping.slopeQ32;
    const Wide beyond = static_cast<Wide>(elapsed - interval) * mapping.rateQ32;
    return mapping.anchorNs + static_cast<TimestampNs>((corrected + beyond) >> kRateShift);
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
    publish(TscMapping{second.ticks, second.ns, toQ32(nsPerTick), toQ32(nsPerTick)});
    return true;
}

// Re-anchors the line at a fresh pair (unless another caller just did): the new line starts where
// the current one stands, at the rate measured since the first pair, and its correction removes
// the error against the steady clock over the next interval.
[[gnu::noinline, gnu::cold]] void reanchor() {
    const TscMapping current = readMapping();
    const std::uint64_t interval = g_intervalTicks.load(std::memory_order_relaxed);
    const std::uint64_t now = __rdtsc();
    if (now >= current.anchorTicks && now - current.anchorTicks <= interval) return;
    const TicksAndNs pair = readPair();
    const TimestampNs mapped = mapTicks(current, pair.ticks, interval);
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
        publish(TscMapping{pair.ticks, pair.ns, current.rateQ32, current.rateQ32});
        return;
    }
    double perTick = static_cast<double>(error) / static_cast<double>(interval);
    const double limit = nsPerTick * kMaxCorrection;
    if (perTick > limit) perTick = limit;
    if (perTick < -limit) perTick = -limit;
    const std::uint64_t rateQ32 = toQ32(nsPerTick);
    publish(TscMapping{pair.ticks, mapped, rateQ32, slopeOf(rateQ32, toSignedQ32(perTick))});
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

// The first reading of the process decides, calibrating the counter (or waiting while another
// thread does); kept out of the reading's path.
[[gnu::noinline, gnu::cold]] bool decideTscUsable() {
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

[[gnu::always_inline]] inline bool tscUsable() {
    const int state = g_tscState.load(std::memory_order_acquire);
    if (state == static_cast<int>(TscState::kUsable)) [[likely]]
        return true;
    return decideTscUsable();
}

// Whoever reads the clock first once an interval is over re-anchors it (the others go on with the
// current line, which stays within the correction's bound).
[[gnu::noinline]] void reanchorUnlessUnderWay() {
    if (!g_reanchoring.load(std::memory_order_relaxed) &&
        !g_reanchoring.exchange(true, std::memory_order_acquire)) {
        reanchor();
        g_reanchoring.store(false, std::memory_order_release);
    }
}

// Twice per traced op: one `rdtsc`, the mapping read under its sequence lock and one multiply.
[[gnu::always_inline]] inline TimestampNs tscNowNs(TimestampNs& lastReading) {
    const std::uint64_t ticks = __rdtsc();
    TscMapping mapping = readMapping();
    const std::uint64_t interval = g_intervalTicks.load(std::memory_order_relaxed);
    const bool due = ticks >= mapping.anchorTicks ? ticks - mapping.anchorTicks > interval
                                                  : mapping.anchorTicks - ticks > interval;
    if (due) [[unlikely]] {
        reanchorUnlessUnderWay();
        mapping = readMapping();
    }
    TimestampNs now = mapTicks(mapping, ticks, interval);
    if (now < lastReading) now = lastReading;
    lastReading = now;
    return now;
}

#endif  // __x86_64__

}  // namespace

TimestampNs Clock::steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

TimestampNs& Clock::lastReadingOfThisThread() { return t_lastReading; }

TimestampNs Clock::nowNs(TimestampNs& lastReadingOfThisThread) {
    const Source source = g_source.load(std::memory_order_acquire);
    if (source != nullptr) [[unlikely]]
        return source();
#if defined(__x86_64__)
    if (tscUsable()) [[likely]]
        return tscNowNs(lastReadingOfThisThread);
#else
    (void)lastReadingOfThisThread;
#endif
    return steadyNs();
}

TimestampNs Clock::nowNs() { return nowNs(lastReadingOfThisThread()); }

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
