#pragma once
// The host's runtime calls that carry a correlation id (launches, copies, memsets: what links a
// call to the device work it queued), each with its thread and the aten ops around it, read once
// for the analyzers that follow a launch to its work or back: the kernel categories by launching
// op (DeviceTimeline), the queued time and the launching threads (StepAttribution), the host
// coverage (HostCoverage) and the issuer of a pageable copy (the advisor).
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct LaunchCall {
    const Event* call = nullptr;
    std::size_t lane = 0;                // its host thread, an index into trace.lanes()
    const Event* innermostOp = nullptr;  // the op that issued the call (null: none around it)
    const Event* outermostOp = nullptr;  // the op the program called
};

// By correlation id: the host threads' runtime calls with an id.
std::unordered_map<std::int64_t, LaunchCall> launchCallsOf(const TraceModel& trace);

// The correlation ids of the launches that are their kernel's first (by kernel name, the earliest
// launch call): where a slow launch pays a first call's cost (its module's lazy loading). A slow
// launch of a kernel launched before waits for something else (a full queue, a blocking launch).
std::unordered_set<std::int64_t> firstLaunchesOfTheirKernels(
    const TraceModel& trace, const std::unordered_map<std::int64_t, LaunchCall>& calls);

}  // namespace glueprof
