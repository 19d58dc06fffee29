#pragma once
// How much of the host's side of the device's work a trace holds. A rule that reads what the host
// was doing while the GPU idled ("the host runs no torch op", "the host is launching") needs the
// host recorded over the device's whole time; a trimmed or sampled trace (host events kept for a
// few launches), a profiling window opened after work was queued, or a Python stack recorded
// without the ops beneath it does not say what the host did, and its idle is "host not recorded".
#include <cstdint>
#include <string>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct HostCoverage {
    // GPU streams' work (kernels, copies, memsets), and of it the items whose launch call (a
    // runtime call with its correlation id) the trace holds. Work without an id counts as
    // unlaunched where other work has ids; where none has (a synthetic trace), 0: not told.
    std::int64_t deviceWork = 0;
    std::int64_t launchedInTrace = 0;
    // Device work that starts before the host's first recorded event: queued before the
    // profiling window opened.
    std::int64_t beforeWindow = 0;
    bool hasOps = false;                         // torch ops (aten::...)
    bool hasPythonFrames = false;                // Kineto's python_function frames
    TimestampNs hostStartNs = 0, hostEndNs = 0;  // the host's recorded window (0, 0: none)

    // The share of device work whose launch the trace holds (1 without correlated work).
    double launchShare() const;
    // Whether the host's side is recorded enough for the rules that read it: at least
    // kMinLaunchShare of the launches, and, where Python frames are, the ops beneath them.
    bool complete() const;
    // One sentence: what the trace holds of the host, and when incomplete, why.
    std::string describe() const;
};

constexpr double kMinLaunchShare = 0.9;

HostCoverage hostCoverageOf(const TraceModel& trace);

}  // namespace glueprof
