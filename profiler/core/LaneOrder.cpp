#include "profiler/core/LaneOrder.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace glueprof {

void sortParentsFirst(std::vector<Event>& events) {
    if (std::is_sorted(events.begin(), events.end(), parentsFirst)) return;
    struct Key {
        TimestampNs start;
        TimestampNs end;
        std::size_t index;  // ties keep the order they were added in (stable)
    };
    const auto before = [](const Key& a, const Key& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.end != b.end) return a.end > b.end;
        return a.index < b.index;
    };
    // A lane is mostly in order as traces write it (a step's range written after the ops inside
    // it, a few late events): the events that keep the order stay where they are, moved down over
    // the gaps the others leave; only the others are sorted, aside, and merged in from the back.
    // Keys are unique (the index), so this is the order a full sort gives. Nothing the size of the
    // lane is allocated: a new array of a large lane cost more in page faults than the sort.
    std::vector<std::size_t> misplaced;  // their indices, ascending
    std::size_t lastKept = 0;
    for (std::size_t i = 1; i < events.size(); ++i) {
        if (parentsFirst(events[i], events[lastKept])) {
            misplaced.push_back(i);
        } else {
            lastKept = i;
        }
    }
    std::vector<Key> asideKeys;
    asideKeys.reserve(misplaced.size());
    std::vector<Event> aside;  // the misplaced events, in the order of `misplaced`
    aside.reserve(misplaced.size());
    for (std::size_t i : misplaced) {
        asideKeys.push_back(Key{events[i].startNs, events[i].endNs, aside.size()});
        aside.push_back(std::move(events[i]));
    }
    // Sorted by (start, end); ties by index into `aside`, which is in the lane's order.
    std::sort(asideKeys.begin(), asideKeys.end(), before);
    std::size_t kept = 0;  // events in order, moved down: events[0, kept)
    for (std::size_t i = 0, next = 0; i < events.size(); ++i) {
        if (next < misplaced.size() && misplaced[next] == i) {
            ++next;
        } else {
            if (kept != i) events[kept] = std::move(events[i]);
            ++kept;
        }
    }
    // Of a kept event and a misplaced one that tie in (start, end), the kept one goes first: an
    // event is misplaced only when it sorts strictly before a kept event earlier in the lane, so
    // every kept event it ties with came before it in the lane too.
    std::size_t to = events.size();
    std::size_t fromKept = kept;
    std::size_t fromAside = asideKeys.size();
    while (fromAside > 0) {
        const Key& a = asideKeys[fromAside - 1];
        const bool keptLast = fromKept > 0 && parentsFirst(aside[a.index], events[fromKept - 1]);
        if (keptLast) {
            events[--to] = std::move(events[--fromKept]);
        } else {
            events[--to] = std::move(aside[a.index]);
            --fromAside;
        }
    }
}

}  // namespace glueprof
