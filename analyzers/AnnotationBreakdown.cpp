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

std::vector<NamedDurations> topWithOthers(const std::vector<NamedDurations>& names,
                                          std::size_t shown) {
    // An "others" entry the breakdown folded already joins the rest, so there is one at most.
    std::vector<const NamedDurations*> named;
    std::vector<const NamedDurations*> rest;
    for (const NamedDurations& d : names) {
        if (d.name == kOthersName || named.size() == shown) {
            rest.push_back(&d);
        } else {
            named.push_back(&d);
        }
    }
    std::vector<NamedDurations> top;
    for (const NamedDurations* d : named) top.push_back(*d);
    if (rest.empty()) return top;
    if (rest.size() == 1 && rest.front()->name != kOthersName) {  // one left over: itself
        top.push_back(*rest.front());
        return top;
    }
    NamedDurations others{kOthersName};
    double squares = 0.0;  // the parts' sums of squares, from their mean and deviation
    for (const NamedDurations* d : rest) {
        others.minNs = others.count == 0 ? d->minNs : std::min(others.minNs, d->minNs);
        others.maxNs = std::max(others.maxNs, d->maxNs);
        others.count += d->count;
        others.ns += d->ns;
        const double n = static_cast<double>(d->count);
        squares += d->stddevNs * d->stddevNs * (n - 1.0) + n * d->meanNs * d->meanNs;
    }
    const double n = static_cast<double>(others.count);
    others.meanNs = static_cast<double>(others.ns) / n;
    if (others.count > 1)
        others.stddevNs =
            std::sqrt(std::max((squares - n * others.meanNs * others.meanNs) / (n - 1.0), 0.0));
    top.push_back(others);
    return top;
}

}  // namespace glueprof
