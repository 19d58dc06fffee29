#pragma once
// The order of a lane's events that TraceModel keeps and every analyzer relies on: parents first
// (an earlier start, or the same start and a later end), events that tie in both in the order they
// were added.
#include <vector>

#include "profiler/core/Event.h"

namespace glueprof {

inline bool parentsFirst(const Event& a, const Event& b) {
    return a.startNs != b.startNs ? a.startNs < b.startNs : a.endNs > b.endNs;
}

// Puts `events` in that order: what std::stable_sort with parentsFirst gives, without moving the
// events log(n) times (a sort of small keys, then one pass). A lane already in order (as the store
// returns lanes, and most traces write them) is left as it is.
void sortParentsFirst(std::vector<Event>& events);

}  // namespace glueprof
