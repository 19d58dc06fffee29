#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "profiler/core/Clock.h"

namespace glueprof {
namespace {

// How far the counter-read clock may stray from the steady clock: its rate is re-measured and its
// error taken out every 50 ms, so it stays within microseconds (about 100 ns on this machine);
// 500 us leaves room for a first rate measured over 2 ms on a loaded machine, and is still far
// below what a correction that outlives its interval makes of a few idle gaps (milliseconds).
constexpr TimestampNs kToleranceNs = 500'000;

// Over 120 ms (two re-anchorings and more) on two threads at once, every reading is no earlier than
// the one before it on its thread and lies between two steady-clock readings taken around it.
TEST(ClockTest, NeverStepsBackAndStaysOnTheSteadyClockAcrossReanchoring) {
    auto readFor = [](TimestampNs durationNs, int* backwardSteps, int* strays, long* readings) {
        const TimestampNs end = Clock::steadyNs() + durationNs;
        TimestampNs previous = Clock::nowNs();
        for (;;) {
            const TimestampNs before = Clock::steadyNs();
            const TimestampNs now = Clock::nowNs();
            const TimestampNs after = Clock::steadyNs();
            if (now < previous) ++*backwardSteps;
            if (now < before - kToleranceNs || now > after + kToleranceNs) ++*strays;
            previous = now;
            ++*readings;
            if (after >= end) break;
        }
    };
    int backward[2] = {0, 0};
    int strays[2] = {0, 0};
    long readings[2] = {0, 0};
    std::thread other(readFor, 120'000'000, &backward[1], &strays[1], &readings[1]);
    readFor(120'000'000, &backward[0], &strays[0], &readings[0]);
    other.join();
    for (int thread = 0; thread < 2; ++thread) {
        EXPECT_EQ(backward[thread], 0) << "thread " << thread;
        EXPECT_EQ(strays[thread], 0) << "thread " << thread << " of " << readings[thread];
        EXPECT_GT(readings[thread], 1000);
    }
}

// Readings after idle gaps longer than the re-anchoring interval (a thread blocked in a device
// sync while nothing else reads the clock): the line's correction covers one interval only, so the
// error does not grow from gap to gap, and the clock still never steps back.
TEST(ClockTest, StaysOnTheSteadyClockAcrossIdleGaps) {
    TimestampNs previous = Clock::nowNs();
    for (int gap = 0; gap < 8; ++gap) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const TimestampNs before = Clock::steadyNs();
        const TimestampNs now = Clock::nowNs();
        const TimestampNs after = Clock::steadyNs();
        EXPECT_GE(now, previous) << "gap " << gap;
        EXPECT_GE(now, before - kToleranceNs) << "gap " << gap;
        EXPECT_LE(now, after + kToleranceNs) << "gap " << gap;
        previous = now;
    }
}

// An installed source (CUPTI's timestamp) wins over the counter, and the steady clock comes back.
TEST(ClockTest, AnInstalledSourceIsReadUntilRemoved) {
    const Clock::Source previous = Clock::useSource([]() -> TimestampNs { return 42; });
    EXPECT_EQ(Clock::nowNs(), 42);
    Clock::useSource(previous);
    const TimestampNs before = Clock::steadyNs();
    EXPECT_GE(Clock::nowNs(), before - kToleranceNs);
}

// GLUEPROF_CLOCK=steady: the process reads clock_gettime, never the counter (a fresh process, since
// the choice is made once, at the first reading).
TEST(ClockTest, SteadyChoiceTurnsTheCounterOff) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("GLUEPROF_CLOCK", "steady", 1);
            const TimestampNs now = Clock::nowNs();
            std::exit(!Clock::readsTimeStampCounter() && now > 0 ? 0 : 1);
        },
        testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace glueprof
