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
    std::vector<Key> keys;
    keys.reserve(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        keys.push_back({events[i].startNs, events[i].endNs, i});
    }
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.end != b.end) return a.end > b.end;
        return a.index < b.index;
    });
    std::vector<Event> sorted;
    sorted.reserve(events.size());
    for (const Key& key : keys) sorted.push_back(std::move(events[key.index]));
    events.swap(sorted);
}

}  // namespace glueprof
