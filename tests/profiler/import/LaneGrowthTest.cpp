// TraceAssembly::reserveAhead: once a twentieth of the source is read, a full lane grows to what
// the whole file will hold at the rate read so far (and a quarter more), in one step instead of a
// doubling at a time; before that, or with no size to go by, it doubles. The events are the same.
#include <gtest/gtest.h>

#include <cstdint>

#include "profiler/import/TraceAssembly.h"

namespace glueprof {
namespace {

// The capacity of the one lane after `events` events, the read at done/total of the source.
std::size_t capacityAfter(std::size_t events, std::uint64_t done, std::uint64_t total) {
    TraceAssembly assembly;
    const std::size_t lane = assembly.hostLane("p", 1);
    assembly.readSoFar(done, total);
    for (std::size_t i = 0; i < events; ++i) {
        const auto t = static_cast<TimestampNs>(i) * 10;
        assembly.add(lane, EventKind::kOp, Category::kNone, "op", t, t + 5);
    }
    const ImportedRun run = std::move(assembly).finish(RunSummary{});
    EXPECT_EQ(run.model.eventsOnLane(0).size(), events);
    return run.model.eventsOnLane(0).capacity();
}

TEST(LaneGrowth, AQuarterReadGrowsAFullLaneToFiveTimesItsSize) {
    // 64 events fill the first allocation; the 65th grows it to 64 * 4 * 1.25.
    EXPECT_EQ(capacityAfter(65, 25, 100), 320u);
    EXPECT_EQ(capacityAfter(321, 25, 100), 1600u);
}

TEST(LaneGrowth, EarlyInTheReadOrWithoutASizeTheLaneDoubles) {
    EXPECT_EQ(capacityAfter(65, 4, 100), 128u);    // under a twentieth read
    EXPECT_EQ(capacityAfter(65, 0, 0), 128u);      // no size known (never told)
    EXPECT_EQ(capacityAfter(65, 100, 100), 128u);  // all read: nothing more to come
}

TEST(LaneGrowth, AnEstimateBelowADoublingDoubles) {
    // At 90% read the estimate is 64 / 0.9 * 1.25 = 88 events: less than a doubling, which wins.
    EXPECT_EQ(capacityAfter(65, 90, 100), 128u);
}

}  // namespace
}  // namespace glueprof
