#include "analyzers/TracingOverhead.h"

#include <algorithm>
#include <set>

namespace glueprof {

TracingOverhead tracingOverheadOf(const TraceModel& trace, bool recorded,
                                  std::optional<double> nsPerOp, const StepBreakdownResult& steps) {
    TracingOverhead t;
    t.recorded = recorded;
    t.nsPerEvent = nsPerOp;
    const std::set<std::int32_t> measured = trace.measuredSteps();
    if (measured.empty()) return t;
    std::size_t busiest = 0;  // the calibrated cost is an aten op's: ops only, not ranges or API
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        if (trace.lanes()[lane].kind != LaneKind::kHostThread) continue;
        std::size_t ops = 0;
        for (const Event& e : trace.eventsOnLane(lane)) {
            ops += e.kind == EventKind::kOp && measured.count(e.step) != 0 ? 1 : 0;
        }
        busiest = std::max(busiest, ops);
    }
    t.eventsPerStep = static_cast<double>(busiest) / static_cast<double>(measured.size());
    t.stepMs = steps.median(TimingMetric::kStep);
    return t;
}

}  // namespace glueprof
