#include "analyzers/AnnotationBreakdown.h"

#include <algorithm>
#include <cmath>
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
            if (e.kind != EventKind::kRange) continue;
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

std::vector<NamedDurations> topWithOthers(const std::vector<NamedDurations>& names,
                                          std::size_t shown) {
    if (names.size() <= shown + 1) return names;
    std::vector<NamedDurations> top(names.begin(),
                                    names.begin() + static_cast<std::ptrdiff_t>(shown));
    NamedDurations rest{kOthersName};
    double squares = 0.0;  // the parts' sums of squares, from their mean and deviation
    for (std::size_t i = shown; i < names.size(); ++i) {
        const NamedDurations& d = names[i];
        rest.minNs = rest.count == 0 ? d.minNs : std::min(rest.minNs, d.minNs);
        rest.maxNs = std::max(rest.maxNs, d.maxNs);
        rest.count += d.count;
        rest.ns += d.ns;
        const double n = static_cast<double>(d.count);
        squares += d.stddevNs * d.stddevNs * (n - 1.0) + n * d.meanNs * d.meanNs;
    }
    const double n = static_cast<double>(rest.count);
    rest.meanNs = static_cast<double>(rest.ns) / n;
    if (rest.count > 1)
        rest.stddevNs =
            std::sqrt(std::max((squares - n * rest.meanNs * rest.meanNs) / (n - 1.0), 0.0));
    top.push_back(rest);
    return top;
}

}  // namespace glueprof
