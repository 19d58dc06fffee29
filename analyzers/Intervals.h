#pragma once
// The interval toolkit every time-based analyzer uses: half-open [start, end) nanosecond
// intervals, normalized sets (sorted, disjoint, non-empty), union, intersection, difference,
// coverage.
#include <vector>

#include "profiler/core/Clock.h"

namespace glueprof {

struct Interval {
    TimestampNs start = 0;
    TimestampNs end = 0;
    TimestampNs length() const { return end > start ? end - start : 0; }
};

// A normalized set: sorted by start, disjoint, no empty intervals.
using IntervalSet = std::vector<Interval>;

// Sorts and merges (touching intervals merge too). O(n log n).
IntervalSet unionOf(std::vector<Interval> intervals);
// Both arguments normalized. O(|a| + |b|).
IntervalSet intersectionOf(const IntervalSet& a, const IntervalSet& b);
// The parts of `a` not in `b`; both normalized. O(|a| + |b|).
IntervalSet differenceOf(const IntervalSet& a, const IntervalSet& b);
TimestampNs totalLength(const IntervalSet& set);
// The part of the normalized `set` inside `window`. O(log |set| + intervals inside).
IntervalSet clippedTo(const IntervalSet& set, const Interval& window);
// The part of `interval` covered by the normalized `set`. O(log |set| + covered intervals).
TimestampNs coveredLength(const Interval& interval, const IntervalSet& set);

}  // namespace glueprof
