#include "analyzers/HostCoverage.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "analyzers/HtaWindow.h"
#include "analyzers/LaunchCalls.h"
#include "profiler/core/CountText.h"

namespace glueprof {

double HostCoverage::launchShare() const {
    return deviceWork > 0 ? static_cast<double>(launchedInTrace) / static_cast<double>(deviceWork)
                          : 1.0;
}

bool HostCoverage::complete() const {
    return launchShare() >= kMinLaunchShare && !(hasPythonFrames && !hasOps);
}

std::string HostCoverage::describe() const {
    if (deviceWork == 0) return "";
    std::string text =
        fmt::format("the trace holds the launch of {} of {} device work items ({:.0f}%)",
                    countText(static_cast<double>(launchedInTrace)),
                    countText(static_cast<double>(deviceWork)), 100.0 * launchShare());
    if (beforeWindow > 0)
        text += fmt::format("; {} started before the host's first recorded event",
                            countText(static_cast<double>(beforeWindow)));
    if (hasPythonFrames && !hasOps) text += "; it has Python frames but no torch ops beneath them";
    if (complete()) return text + ": the host's side is recorded";
    return text +
           ": the host's side is recorded in part (a trimmed or sampled trace, or a profiling "
           "window), so what the host did while the GPU idled is not told, and the rules that "
           "read it do not run";
}

HostCoverage hostCoverageOf(const TraceModel& trace) {
    HostCoverage c;
    const std::unordered_map<std::int64_t, LaunchCall> launches = launchCallsOf(trace);
    bool anyHost = false;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            c.hasOps = c.hasOps || e.kind == EventKind::kOp;
            c.hasPythonFrames = c.hasPythonFrames || (e.flags & kFlagPythonFrame) != 0;
            c.hostStartNs = anyHost ? std::min(c.hostStartNs, e.startNs) : e.startNs;
            c.hostEndNs = anyHost ? std::max(c.hostEndNs, e.endNs) : e.endNs;
            anyHost = true;
        }
    }
    // A GPU stream's work without a correlation id, in a trace whose other work has them, has no
    // launch to find either; a trace with none at all (a synthetic one) does not tell.
    std::int64_t uncorrelated = 0;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!isDeviceWorkLane(trace.lanes()[i])) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e)) continue;
            if (anyHost && e.startNs < c.hostStartNs) ++c.beforeWindow;
            if (e.correlation == 0) {
                ++uncorrelated;
                continue;
            }
            ++c.deviceWork;
            if (launches.count(e.correlation) != 0) ++c.launchedInTrace;
        }
    }
    if (c.deviceWork > 0) c.deviceWork += uncorrelated;
    return c;
}

}  // namespace glueprof
