#include "analyzers/LaunchCalls.h"

#include <vector>

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

}  // namespace glueprof
