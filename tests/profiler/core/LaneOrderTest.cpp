// sortParentsFirst: the order std::stable_sort with parentsFirst gives, event for event, on lanes
// with many ties (same start, same start and end) where stability decides.
#include "profiler/core/LaneOrder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace glueprof {
namespace {

std::vector<Event> randomLane(std::mt19937_64& random, std::size_t size) {
    std::uniform_int_distribution<TimestampNs> start(0, 40);  // few values: many ties
    std::uniform_int_distribution<TimestampNs> length(0, 5);
    std::vector<Event> events;
    for (std::size_t i = 0; i < size; ++i) {
        Event e;
        e.startNs = start(random);
        e.endNs = e.startNs + length(random);
        e.correlation = static_cast<std::int64_t>(i);  // which event it was, to compare orders
        events.push_back(e);
    }
    return events;
}

std::vector<std::int64_t> order(const std::vector<Event>& events) {
    std::vector<std::int64_t> ids;
    for (const Event& e : events) ids.push_back(e.correlation);
    return ids;
}

TEST(LaneOrderTest, SortsAsAStableSortWouldEventForEvent) {
    std::mt19937_64 random(7);
    for (std::size_t size : {0, 1, 2, 3, 5, 17, 1000, 20000}) {
        std::vector<Event> events = randomLane(random, size);
        std::vector<Event> expected = events;
        std::stable_sort(expected.begin(), expected.end(), parentsFirst);
        sortParentsFirst(events);
        EXPECT_EQ(order(events), order(expected)) << size << " events";
        EXPECT_TRUE(std::is_sorted(events.begin(), events.end(), parentsFirst));
    }
}

// As traces write lanes: in order but for a few events (a step's range after the ops inside it,
// an event that arrived late), the first event among them (the worst case), and ties.
TEST(LaneOrderTest, AMostlyOrderedLaneSortsAsAStableSortWould) {
    std::mt19937_64 random(13);
    for (std::size_t size : {3, 100, 5000}) {
        for (std::size_t moved : {1, 2, 10}) {
            std::vector<Event> events = randomLane(random, size);
            std::stable_sort(events.begin(), events.end(), parentsFirst);
            std::uniform_int_distribution<std::size_t> at(0, size - 1);
            for (std::size_t m = 0; m < moved; ++m) {
                const std::size_t from = at(random);
                const std::size_t to = m == 0 ? 0 : at(random);  // one moved to the front
                Event e = events[from];
                events.erase(events.begin() + static_cast<std::ptrdiff_t>(from));
                events.insert(events.begin() + static_cast<std::ptrdiff_t>(to), e);
            }
            std::vector<Event> expected = events;
            std::stable_sort(expected.begin(), expected.end(), parentsFirst);
            const Event* storage = events.data();
            sortParentsFirst(events);
            EXPECT_EQ(order(events), order(expected)) << size << " events, " << moved << " moved";
            EXPECT_EQ(events.data(), storage) << "sorted in place, not into a new array";
        }
    }
}

// Every order of small lanes with ties, against the stable sort: the merge of the events kept in
// place with the ones sorted aside decides ties between the two by the index in the lane.
TEST(LaneOrderTest, EverySmallLaneSortsAsAStableSortWould) {
    std::mt19937_64 random(17);
    std::uniform_int_distribution<TimestampNs> start(0, 3);
    std::uniform_int_distribution<TimestampNs> length(0, 1);
    for (int trial = 0; trial < 20000; ++trial) {
        std::vector<Event> events(2 + trial % 9);
        for (std::size_t i = 0; i < events.size(); ++i) {
            events[i].startNs = start(random);
            events[i].endNs = events[i].startNs + length(random);
            events[i].correlation = static_cast<std::int64_t>(i);
        }
        std::vector<Event> expected = events;
        std::stable_sort(expected.begin(), expected.end(), parentsFirst);
        sortParentsFirst(events);
        ASSERT_EQ(order(events), order(expected)) << "trial " << trial;
    }
}

TEST(LaneOrderTest, ALaneInOrderIsLeftAsItIs) {
    std::mt19937_64 random(11);
    std::vector<Event> events = randomLane(random, 500);
    std::stable_sort(events.begin(), events.end(), parentsFirst);
    const std::vector<std::int64_t> before = order(events);
    const Event* storage = events.data();
    sortParentsFirst(events);
    EXPECT_EQ(order(events), before);
    EXPECT_EQ(events.data(), storage);  // not copied into a new vector
}

}  // namespace
}  // namespace glueprof
