#include "analyzers/StepDiff.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace glueprof {

const StepInfo* alignedStep(const TraceModel& trace, std::int32_t step) {
    std::int32_t wanted = step;
    if (wanted < 0) {
        const std::set<std::int32_t> measured = trace.measuredSteps();
        if (measured.empty()) return trace.steps().empty() ? nullptr : &trace.steps().front();
        wanted = *measured.begin();
    }
    for (const StepInfo& s : trace.steps()) {
        if (s.step == wanted) return &s;
    }
    return nullptr;
}

namespace {

using Key = std::pair<std::string, EventKind>;
struct Tally {
    std::int64_t count = 0;
    TimestampNs ns = 0;
};

void tally(const TraceModel& trace, const StepInfo& step,
           std::map<Key, std::pair<Tally, Tally>>& out, bool isA) {
    for (std::size_t l = 0; l < trace.lanes().size(); ++l) {
        const std::vector<Event>& events = trace.eventsOnLane(l);
        // Sorted by start: binary-search the window.
        auto first = std::lower_bound(events.begin(), events.end(), step.startNs,
                                      [](const Event& e, TimestampNs t) { return e.startNs < t; });
        for (auto it = first; it != events.end() && it->startNs < step.endNs; ++it) {
            if (it->kind == EventKind::kMarker) continue;
            Tally& t = isA ? out[{trace.name(it->name), it->kind}].first
                           : out[{trace.name(it->name), it->kind}].second;
            ++t.count;
            t.ns += it->durationNs();
        }
    }
}

}  // namespace

StepDiff diffSteps(const TraceModel& a, const TraceModel& b, std::int32_t step) {
    StepDiff diff;
    const StepInfo* sa = alignedStep(a, step);
    const StepInfo* sb = alignedStep(b, step);
    std::map<Key, std::pair<Tally, Tally>> tallies;
    if (sa != nullptr) {
        diff.stepA = sa->step;
        diff.lengthA = sa->endNs - sa->startNs;
        tally(a, *sa, tallies, true);
    }
    if (sb != nullptr) {
        diff.stepB = sb->step;
        diff.lengthB = sb->endNs - sb->startNs;
        tally(b, *sb, tallies, false);
    }
    diff.names.reserve(tallies.size());
    for (const auto& [key, pair] : tallies) {
        diff.names.push_back({key.first, key.second, pair.first.count, pair.second.count,
                              pair.first.ns, pair.second.ns});
    }
    // What changed structurally first (a count that differs: build_packed_mask 16 -> 1), by the
    // size of that change; then the rest by time.
    std::sort(diff.names.begin(), diff.names.end(), [](const NameDelta& x, const NameDelta& y) {
        if (x.countChanged() != y.countChanged()) return x.countChanged();
        if (x.countChanged()) {
            const std::int64_t cx = std::abs(x.countB - x.countA);
            const std::int64_t cy = std::abs(y.countB - y.countA);
            if (cx != cy) return cx > cy;
        }
        const TimestampNs dx = x.nsB > x.nsA ? x.nsB - x.nsA : x.nsA - x.nsB;
        const TimestampNs dy = y.nsB > y.nsA ? y.nsB - y.nsA : y.nsA - y.nsB;
        if (dx != dy) return dx > dy;
        return x.name < y.name;
    });
    return diff;
}

}  // namespace glueprof
