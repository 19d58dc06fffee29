#include "profiler/core/SyncPlacement.h"

#include <algorithm>

namespace glueprof {

namespace {

// The blocking copy (index into waits) that ends last at or before `at`; kNoCopy if none.
// `copies`: indices of the blocking copies, by end.
std::size_t lastCopyEndingBy(const std::vector<HostWait>& waits,
                             const std::vector<std::size_t>& copies, TimestampNs at) {
    auto after = std::upper_bound(copies.begin(), copies.end(), at,
                                  [&](TimestampNs t, std::size_t c) { return t < waits[c].endNs; });
    return after == copies.begin() ? kNoCopy : *(after - 1);
}

// Whether the thread started an API call of its own, neither the copy's nor the sync's, between
// the copy's end and the sync's start. `calls` by start.
bool otherCallBetween(const std::vector<HostCall>& calls, const HostWait& copy,
                      const HostWait& sync) {
    auto it = std::lower_bound(calls.begin(), calls.end(), copy.endNs,
                               [](const HostCall& c, TimestampNs t) { return c.startNs < t; });
    for (; it != calls.end() && it->startNs < sync.startNs; ++it) {
        if (it->correlation != copy.correlation && it->correlation != sync.correlation) return true;
    }
    return false;
}

}  // namespace

std::vector<std::size_t> copiesExtendedBySyncs(const std::vector<HostWait>& waits,
                                               std::vector<HostCall> calls) {
    std::vector<std::size_t> extended(waits.size(), kNoCopy);
    std::vector<std::size_t> copies;
    std::vector<std::size_t> syncs;
    for (std::size_t i = 0; i < waits.size(); ++i) {
        (waits[i].blockingCopy ? copies : syncs).push_back(i);
    }
    if (copies.empty() || syncs.empty()) return extended;
    std::sort(copies.begin(), copies.end(),
              [&](std::size_t a, std::size_t b) { return waits[a].endNs < waits[b].endNs; });
    // Syncs in the order they began (ties: the longer first, then as given): the first sync that
    // finds a copy as the last one before it is the first sync after that copy.
    std::sort(syncs.begin(), syncs.end(), [&](std::size_t a, std::size_t b) {
        if (waits[a].startNs != waits[b].startNs) return waits[a].startNs < waits[b].startNs;
        if (waits[a].endNs != waits[b].endNs) return waits[a].endNs > waits[b].endNs;
        return a < b;
    });
    std::sort(calls.begin(), calls.end(),
              [](const HostCall& a, const HostCall& b) { return a.startNs < b.startNs; });
    std::vector<bool> claimed(waits.size(), false);
    for (std::size_t s : syncs) {
        const std::size_t c = lastCopyEndingBy(waits, copies, waits[s].startNs);
        if (c == kNoCopy || claimed[c]) continue;
        claimed[c] = true;
        if (!otherCallBetween(calls, waits[c], waits[s])) extended[s] = c;
    }
    return extended;
}

}  // namespace glueprof
