#include "analyzers/AnnotationBreakdown.h"

#include <optional>

#include "analyzers/HtaWindow.h"

namespace glueprof {

AnnotationBreakdownResult analyzeAnnotationBreakdown(const TraceModel& trace) {
    const std::optional<TimestampNs> cutoff = htaHostEventCutoff(trace);
    DurationsByName gpu;
    DurationsByName cpu;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        const bool device = isDeviceWorkLane(lane);
        if (!device && lane.kind != LaneKind::kHostThread) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            // Python frames (with_stack) and collectives' comm ranges (record_param_comms) are
            // ranges, but no annotation of the program's: HTA reads user_annotation alone.
            if (e.kind != EventKind::kRange || (e.flags & kFlagPythonFrame) != 0 ||
                e.category == Category::kComm)
                continue;
            if (device) {
                gpu.add(trace.name(e.name), e.durationNs());
            } else if (!cutoff || e.startNs <= *cutoff) {
                cpu.add(trace.name(e.name), e.durationNs());
            }
        }
    }
    return {gpu.folded(kShownAnnotations, kAnnotationDurationRatio),
            cpu.folded(kShownAnnotations, kAnnotationDurationRatio)};
}

}  // namespace glueprof
