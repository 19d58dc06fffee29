#include "analyzers/LaunchCalls.h"

#include <vector>

#include "analyzers/HtaWindow.h"

namespace glueprof {

std::unordered_map<std::int64_t, LaunchCall> launchCallsOf(const TraceModel& trace) {
    std::unordered_map<std::int64_t, LaunchCall> calls;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        std::vector<const Event*> openOps;  // events are sorted by start, parents first
        for (const Event& e : trace.eventsOnLane(i)) {
            while (!openOps.empty() && openOps.back()->endNs <= e.startNs) openOps.pop_back();
            if (e.kind == EventKind::kOp) openOps.push_back(&e);
            if (e.kind == EventKind::kRuntime && e.correlation != 0) {
                calls[e.correlation] = {&e, i, openOps.empty() ? nullptr : openOps.back(),
                                        openOps.empty() ? nullptr : openOps.front()};
            }
        }
    }
    return calls;
}

std::unordered_set<std::int64_t> firstLaunchesOfTheirKernels(
    const TraceModel& trace, const std::unordered_map<std::int64_t, LaunchCall>& calls) {
    std::unordered_map<StringId, std::pair<TimestampNs, std::int64_t>> first;  // start, id
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!isDeviceWorkLane(trace.lanes()[i])) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind != EventKind::kKernel || e.correlation == 0) continue;
            const auto call = calls.find(e.correlation);
            if (call == calls.end()) continue;
            const TimestampNs start = call->second.call->startNs;
            auto [it, added] = first.try_emplace(e.name, start, e.correlation);
            if (!added && start < it->second.first) it->second = {start, e.correlation};
        }
    }
    std::unordered_set<std::int64_t> ids;
    for (const auto& [name, launch] : first) ids.insert(launch.second);
    return ids;
}

}  // namespace glueprof
