#include "profiler/core/LaneOrder.h"

#include <algorithm>
#include <cstddef>
#include <iterator>

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
    // it, a few late events): the keys that keep the order go aside as they are, only the others
    // are sorted, and the two merge. Keys are unique (the index), so this is the order a full
    // sort gives; at worst (the first event belongs last) it is a full sort and a merge.
    std::vector<Key> inOrder;
    std::vector<Key> misplaced;
    inOrder.reserve(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        const Key key{events[i].startNs, events[i].endNs, i};
        if (inOrder.empty() || !before(key, inOrder.back())) {
            inOrder.push_back(key);
        } else {
            misplaced.push_back(key);
        }
    }
    std::sort(misplaced.begin(), misplaced.end(), before);
    std::vector<Key> keys;
    keys.reserve(events.size());
    std::merge(inOrder.begin(), inOrder.end(), misplaced.begin(), misplaced.end(),
               std::back_inserter(keys), before);
    std::vector<Key>().swap(inOrder);  // freed before the events' new array: no higher peak
    std::vector<Key>().swap(misplaced);
    std::vector<Event> sorted;
    sorted.reserve(events.size());
    for (const Key& key : keys) sorted.push_back(std::move(events[key.index]));
    events.swap(sorted);
}

}  // namespace glueprof
