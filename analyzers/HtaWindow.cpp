#include "analyzers/HtaWindow.h"

#include <algorithm>

namespace glueprof {

std::optional<TimestampNs> htaHostEventCutoff(const TraceModel& trace) {
    if (trace.steps().size() < 2) return std::nullopt;
    TimestampNs lastEnd = trace.steps().front().endNs;
    for (const StepInfo& step : trace.steps()) lastEnd = std::max(lastEnd, step.endNs);
    return lastEnd;
}

}  // namespace glueprof
