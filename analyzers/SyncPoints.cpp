#include "analyzers/SyncPoints.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "analyzers/NameMatch.h"
#include "analyzers/Statistics.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

namespace {

std::vector<SyncGroup> groupBy(const std::vector<SyncPoint>& points,
                               std::string (*keyOf)(const SyncPoint&)) {
    std::map<std::string, SyncGroup> groups;
    for (const SyncPoint& p : points) {
        std::string key = keyOf(p);
        SyncGroup& g = groups[key];
        g.key = std::move(key);
        ++g.count;
        g.totalMs += static_cast<double>(p.durationNs) / 1e6;
    }
    std::vector<SyncGroup> sorted;
    for (auto& [key, group] : groups) sorted.push_back(group);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const SyncGroup& a, const SyncGroup& b) { return a.count > b.count; });
    return sorted;
}

std::string opKey(const SyncPoint& p) { return p.op; }
std::string layerKey(const SyncPoint& p) {
    return p.layer == kNoTag ? std::string("outside layers") : "layer " + std::to_string(p.layer);
}
std::string awaitedKey(const SyncPoint& p) {
    return p.awaited.empty() ? std::string("(nothing)") : p.awaited;
}
std::string rangeKey(const SyncPoint& p) {
    return p.range.empty() ? std::string("(none)") : p.range;
}

// Device work by launch time (its runtime call's start, else its own start), with the running
// latest-ending work of each prefix: what a sync that begins at t waits for is, of the work
// launched by then, the one that ends last — on the stream the sync waits for when a `host sync`
// marker with its correlation names it (imported traces), else on any stream.
class LaunchedWork {
  public:
    explicit LaunchedWork(const TraceModel& trace) {
        std::unordered_map<std::int64_t, TimestampNs> launchStart;
        for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
            for (const Event& e : trace.eventsOnLane(lane)) {
                if (e.kind == EventKind::kRuntime && e.correlation != 0)
                    launchStart.emplace(e.correlation, e.startNs);
            }
        }
        const auto marker = trace.findName(names::kHostSyncMarker);
        for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
            if (trace.lanes()[lane].kind != LaneKind::kCudaStream) continue;
            for (const Event& e : trace.eventsOnLane(lane)) {
                if (e.kind == EventKind::kMarker && marker && e.name == *marker)
                    m_waitedLanes[e.correlation].push_back(lane);
                if (e.kind != EventKind::kKernel && e.kind != EventKind::kMemcpy &&
                    e.kind != EventKind::kMemset)
                    continue;
                auto launch =
                    e.correlation != 0 ? launchStart.find(e.correlation) : launchStart.end();
                const TimestampNs launched =
                    launch != launchStart.end() ? launch->second : e.startNs;
                m_all.work.push_back({launched, &e});
                m_byLane[lane].work.push_back({launched, &e});
            }
        }
        m_all.finish();
        for (auto& [lane, work] : m_byLane) work.finish();
    }

    // `syncStart`: launched at or before it (a blocking copy's sync begins with the call that
    // launched the copy).
    const Event* awaitedBy(std::int64_t correlation, TimestampNs syncStart) const {
        auto waited = m_waitedLanes.find(correlation);
        if (waited == m_waitedLanes.end()) return m_all.latestBy(syncStart);
        const Event* latest = nullptr;
        for (std::size_t lane : waited->second) {
            auto work = m_byLane.find(lane);
            if (work == m_byLane.end()) continue;
            const Event* e = work->second.latestBy(syncStart);
            if (e != nullptr && (latest == nullptr || e->endNs > latest->endNs)) latest = e;
        }
        // Nothing ran on the waited stream before: the legacy default stream (an event recorded
        // there) orders after every blocking stream, so any stream's work is what it waits for.
        return latest != nullptr ? latest : m_all.latestBy(syncStart);
    }

  private:
    struct Work {
        std::vector<std::pair<TimestampNs, const Event*>> work;  // by launch time
        std::vector<const Event*> latest;                        // latest-ending of each prefix
        void finish() {
            std::sort(work.begin(), work.end(),
                      [](const auto& a, const auto& b) { return a.first < b.first; });
            const Event* best = nullptr;
            for (const auto& [launched, e] : work) {
                if (best == nullptr || e->endNs >= best->endNs) best = e;
                latest.push_back(best);
            }
        }
        const Event* latestBy(TimestampNs t) const {
            auto after =
                std::upper_bound(work.begin(), work.end(), t,
                                 [](TimestampNs v, const std::pair<TimestampNs, const Event*>& w) {
                                     return v < w.first;
                                 });
            if (after == work.begin()) return nullptr;
            return latest[static_cast<std::size_t>(after - work.begin()) - 1];
        }
    };
    Work m_all;
    std::unordered_map<std::size_t, Work> m_byLane;
    std::unordered_map<std::int64_t, std::vector<std::size_t>> m_waitedLanes;
};

// The innermost open range that is a MoE layer's routing, without a module's instance number.
std::string moeRangeOf(const TraceModel& trace, const std::vector<const Event*>& openRanges) {
    for (auto it = openRanges.rbegin(); it != openRanges.rend(); ++it) {
        // A Python frame names a source line, not a layer: only its module frames count.
        const std::string& name = trace.name((*it)->name);
        if (((*it)->flags & kFlagPythonFrame) != 0 && name.rfind("nn.Module: ", 0) != 0) continue;
        if (isMoeRangeName(name)) return withoutModuleInstance(name);
    }
    return "";
}

}  // namespace

SyncPointsResult analyzeSyncPoints(const TraceModel& trace) {
    const std::set<std::int32_t> measuredSteps = trace.measuredSteps();
    SyncPointsResult result;
    for (std::int32_t step : measuredSteps) {
        result.perStep[step] = 0;
        result.hostReadsPerStep[step] = 0;
    }
    for (std::int32_t step : measuredSteps) {
        result.hostSyncsPerStep[step] = 0;
        result.blockedNsPerStep[step] = 0;
    }
    const LaunchedWork launched(trace);
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        std::vector<const Event*> openRanges;  // stacks: events are sorted parents first
        std::vector<const Event*> openOps;
        const bool hostLane = trace.lanes()[lane].kind == LaneKind::kHostThread;
        for (const Event& e : trace.eventsOnLane(lane)) {
            while (!openRanges.empty() && openRanges.back()->endNs <= e.startNs)
                openRanges.pop_back();
            while (!openOps.empty() && openOps.back()->endNs <= e.startNs) openOps.pop_back();
            if (e.kind == EventKind::kRange) {
                openRanges.push_back(&e);
                continue;
            }
            if (e.kind == EventKind::kSync && hostLane) {
                result.hostSyncsCaptured = true;
                if (measuredSteps.count(e.step) == 0) continue;
                SyncPoint p;
                p.step = e.step;
                p.layer = e.layer;
                p.op = openOps.empty() ? trace.name(e.name) : trace.name(openOps.back()->name);
                p.userOp = openOps.empty() ? p.op : trace.name(openOps.front()->name);
                p.range = openRanges.empty() ? std::string() : trace.name(openRanges.back()->name);
                p.moeRange = moeRangeOf(trace, openRanges);
                p.startNs = e.startNs;
                p.durationNs = e.durationNs();
                p.hostRead = true;
                if (const Event* w = launched.awaitedBy(e.correlation, e.startNs))
                    p.awaited = trace.name(w->name);
                ++result.hostSyncsPerStep[p.step];
                result.blockedNsPerStep[p.step] += p.durationNs;
                result.hostSyncs.push_back(std::move(p));
                continue;
            }
            if (e.kind == EventKind::kOp) openOps.push_back(&e);
            if ((e.flags & kFlagWouldSync) == 0 || measuredSteps.count(e.step) == 0) continue;
            SyncPoint p;
            p.step = e.step;
            p.layer = e.layer;
            p.op = trace.name(e.name);
            p.range = openRanges.empty() ? std::string() : trace.name(openRanges.back()->name);
            p.moeRange = moeRangeOf(trace, openRanges);
            p.startNs = e.startNs;
            p.durationNs = e.durationNs();
            p.hostRead = (e.flags & kFlagHostRead) != 0;
            ++result.perStep[p.step];
            if (p.hostRead) ++result.hostReadsPerStep[p.step];
            result.points.push_back(std::move(p));
        }
    }
    result.byOp = groupBy(result.points, opKey);
    result.byLayer = groupBy(result.points, layerKey);
    result.byRange = groupBy(result.points, rangeKey);
    std::vector<double> counts;
    for (const auto& [step, count] : result.perStep) counts.push_back(static_cast<double>(count));
    result.medianPerStep = median(counts);
    if (result.hostSyncsCaptured) {
        result.hostSyncsByOp = groupBy(result.hostSyncs, opKey);
        result.hostSyncsByAwaited = groupBy(result.hostSyncs, awaitedKey);
        std::vector<double> syncs;
        std::vector<double> blocked;
        for (const auto& [step, count] : result.hostSyncsPerStep)
            syncs.push_back(static_cast<double>(count));
        for (const auto& [step, ns] : result.blockedNsPerStep)
            blocked.push_back(static_cast<double>(ns) / 1e6);
        result.medianHostSyncsPerStep = median(syncs);
        result.medianSyncBlockedMs = median(blocked);
    }
    return result;
}

}  // namespace glueprof
