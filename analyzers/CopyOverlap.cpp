#include "analyzers/CopyOverlap.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "analyzers/Intervals.h"

namespace glueprof {

namespace {

bool isHostMemory(MemoryKind kind) {
    return kind == MemoryKind::kPageable || kind == MemoryKind::kPinned;
}

char side(MemoryKind kind) {
    if (kind == MemoryKind::kDevice) return 'D';
    if (isHostMemory(kind)) return 'H';
    return '?';
}

void add(CopyTotals& totals, const Event& copy, TimestampNs covered) {
    ++totals.copies;
    totals.bytes += copy.bytes;
    totals.copyNs += copy.durationNs();
    if (copy.bytes > 0) totals.sizedCopyNs += copy.durationNs();
    totals.overlappedNs += covered;
}

bool hasKernels(const TraceModel& trace) {
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        for (const Event& e : trace.eventsOnLane(lane)) {
            if (e.kind == EventKind::kKernel) return true;
        }
    }
    return false;
}

// The compute of one lane. GPU: its kernels. CPU: its top-level ops, less the time the thread
// spent blocked (wait events) — an autograd node that waits for a reload is not computing.
IntervalSet laneCompute(const std::vector<Event>& events, const Lane& lane, bool fromKernels) {
    std::vector<Interval> compute;
    std::vector<Interval> blocked;
    for (const Event& e : events) {
        if (fromKernels) {
            if (e.kind == EventKind::kKernel) compute.push_back({e.startNs, e.endNs});
        } else if (lane.kind == LaneKind::kHostThread) {
            if (e.kind == EventKind::kOp && (e.flags & kFlagNested) == 0) {
                compute.push_back({e.startNs, e.endNs});
            } else if (e.kind == EventKind::kWait) {
                blocked.push_back({e.startNs, e.endNs});
            }
        }
    }
    return differenceOf(unionOf(std::move(compute)), unionOf(std::move(blocked)));
}

}  // namespace

std::string copyDirection(MemoryKind src, MemoryKind dst) {
    std::string direction;
    direction += side(src);
    direction += "to";
    direction += side(dst);
    return direction;
}

double CopyOverlapResult::copyMsPerStep() const {
    return measuredSteps > 0
               ? static_cast<double>(total.copyNs) / 1e6 / static_cast<double>(measuredSteps)
               : 0.0;
}

double CopyOverlapResult::exposedMsPerStep() const {
    return measuredSteps > 0
               ? static_cast<double>(total.exposedNs()) / 1e6 / static_cast<double>(measuredSteps)
               : 0.0;
}

namespace {

// Per lane, the union of compute on the other lanes of its device.
std::vector<IntervalSet> computeOnOtherLanes(const TraceModel& trace, bool fromKernels) {
    std::unordered_map<std::int64_t, std::vector<std::pair<std::size_t, IntervalSet>>>
        computeByDevice;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        IntervalSet compute = laneCompute(trace.eventsOnLane(i), lane, fromKernels);
        if (!compute.empty()) computeByDevice[lane.device].emplace_back(i, std::move(compute));
    }
    std::vector<IntervalSet> others(trace.lanes().size());
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        bool hasCopies = false;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind == EventKind::kMemcpy) {
                hasCopies = true;
                break;
            }
        }
        if (!hasCopies) continue;
        std::vector<Interval> merged;
        for (const auto& [laneIndex, set] : computeByDevice[trace.lanes()[i].device]) {
            if (laneIndex != i) merged.insert(merged.end(), set.begin(), set.end());
        }
        others[i] = unionOf(std::move(merged));
    }
    return others;
}

}  // namespace

CopyOverlapResult analyzeCopyOverlap(const TraceModel& trace) {
    CopyOverlapResult result;
    const std::set<std::int32_t> measured = trace.measuredSteps();
    result.measuredSteps = measured.size();
    result.computeFromKernels = hasKernels(trace);
    const std::vector<IntervalSet> compute = computeOnOtherLanes(trace, result.computeFromKernels);
    // Aggregated by name id and by memory-kind pair first; names are built once at the end.
    std::unordered_map<StringId, CopyTotals> byNameId;
    std::map<std::pair<MemoryKind, MemoryKind>, CopyTotals> byKinds;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        CopyTotals lane;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind != EventKind::kMemcpy || measured.count(e.step) == 0) continue;
            const TimestampNs covered = coveredLength(Interval{e.startNs, e.endNs}, compute[i]);
            add(result.total, e, covered);
            add(lane, e, covered);
            add(byNameId[e.name], e, covered);
            add(byKinds[{e.srcKind, e.dstKind}], e, covered);
        }
        if (lane.copies > 0) result.byLane[trace.lanes()[i].name] = lane;
    }
    auto merge = [](CopyTotals& into, const CopyTotals& from) {
        into.copies += from.copies;
        into.bytes += from.bytes;
        into.copyNs += from.copyNs;
        into.sizedCopyNs += from.sizedCopyNs;
        into.overlappedNs += from.overlappedNs;
    };
    for (const auto& [name, totals] : byNameId) merge(result.byName[trace.name(name)], totals);
    for (const auto& [kinds, totals] : byKinds) {
        merge(result.byDirection[copyDirection(kinds.first, kinds.second)], totals);
        if (isHostMemory(kinds.first)) merge(result.byHostMemory[toString(kinds.first)], totals);
        if (isHostMemory(kinds.second) && kinds.second != kinds.first) {
            merge(result.byHostMemory[toString(kinds.second)], totals);
        }
    }
    return result;
}

std::vector<CopySpan> copySpans(const TraceModel& trace, std::int32_t step) {
    const std::vector<IntervalSet> compute = computeOnOtherLanes(trace, hasKernels(trace));
    std::vector<CopySpan> spans;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind != EventKind::kMemcpy || e.step != step) continue;
            CopySpan span{trace.name(e.name), e.startNs, e.endNs, {}};
            for (const Interval& c : clippedTo(compute[i], Interval{e.startNs, e.endNs})) {
                span.covered.emplace_back(c.start, c.end);
            }
            spans.push_back(std::move(span));
        }
    }
    std::sort(spans.begin(), spans.end(),
              [](const CopySpan& a, const CopySpan& b) { return a.startNs < b.startNs; });
    return spans;
}

OverlapStrip overlapStripOf(const TraceModel& trace) {
    OverlapStrip strip;
    const std::set<std::int32_t> measured = trace.measuredSteps();
    if (measured.empty()) return strip;
    strip.step = *measured.begin();
    for (const StepInfo& s : trace.steps()) {
        if (s.step == strip.step) {
            strip.startNs = s.startNs;
            strip.endNs = s.endNs;
        }
    }
    strip.copies = copySpans(trace, strip.step);
    return strip;
}

}  // namespace glueprof
