#include "analyzers/Intervals.h"

#include <algorithm>

namespace glueprof {

IntervalSet unionOf(std::vector<Interval> intervals) {
    intervals.erase(std::remove_if(intervals.begin(), intervals.end(),
                                   [](const Interval& i) { return i.end <= i.start; }),
                    intervals.end());
    auto byStart = [](const Interval& a, const Interval& b) { return a.start < b.start; };
    // Intervals from one lane arrive sorted: skip the sort then (a linear check).
    if (!std::is_sorted(intervals.begin(), intervals.end(), byStart)) {
        std::sort(intervals.begin(), intervals.end(), byStart);
    }
    IntervalSet merged;
    for (const Interval& i : intervals) {
        if (!merged.empty() && i.start <= merged.back().end) {
            merged.back().end = std::max(merged.back().end, i.end);
        } else {
            merged.push_back(i);
        }
    }
    return merged;
}

IntervalSet intersectionOf(const IntervalSet& a, const IntervalSet& b) {
    IntervalSet out;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() && j < b.size()) {
        const TimestampNs start = std::max(a[i].start, b[j].start);
        const TimestampNs end = std::min(a[i].end, b[j].end);
        if (start < end) out.push_back(Interval{start, end});
        if (a[i].end < b[j].end) {
            ++i;
        } else {
            ++j;
        }
    }
    return out;
}

IntervalSet differenceOf(const IntervalSet& a, const IntervalSet& b) {
    IntervalSet out;
    if (a.empty()) return out;
    // From the first interval of b that ends after a starts: a short `a` against a long `b` (one
    // step's window against a whole run's busy time) costs log |b|, not |b|.
    std::size_t j = static_cast<std::size_t>(
        std::upper_bound(b.begin(), b.end(), a.front().start,
                         [](TimestampNs t, const Interval& i) { return t < i.end; }) -
        b.begin());
    for (const Interval& interval : a) {
        TimestampNs cursor = interval.start;
        while (j < b.size() && b[j].end <= cursor) ++j;
        std::size_t k = j;
        for (; k < b.size() && b[k].start < interval.end; ++k) {
            if (b[k].start > cursor) out.push_back(Interval{cursor, b[k].start});
            cursor = std::max(cursor, b[k].end);
        }
        if (cursor < interval.end) out.push_back(Interval{cursor, interval.end});
    }
    return out;
}

TimestampNs totalLength(const IntervalSet& set) {
    TimestampNs total = 0;
    for (const Interval& i : set) total += i.length();
    return total;
}

IntervalSet clippedTo(const IntervalSet& set, const Interval& window) {
    auto it = std::upper_bound(set.begin(), set.end(), window.start,
                               [](TimestampNs t, const Interval& i) { return t < i.end; });
    IntervalSet out;
    for (; it != set.end() && it->start < window.end; ++it) {
        out.push_back(Interval{std::max(it->start, window.start), std::min(it->end, window.end)});
    }
    return out;
}

TimestampNs coveredLength(const Interval& interval, const IntervalSet& set) {
    // The first set interval that ends after interval.start.
    auto it = std::upper_bound(set.begin(), set.end(), interval.start,
                               [](TimestampNs t, const Interval& i) { return t < i.end; });
    TimestampNs covered = 0;
    for (; it != set.end() && it->start < interval.end; ++it) {
        covered += std::min(it->end, interval.end) - std::max(it->start, interval.start);
    }
    return covered;
}

}  // namespace glueprof
