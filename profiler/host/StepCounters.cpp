#include "profiler/host/StepCounters.h"

namespace glueprof {

const char* counterName(Counter counter) {
    switch (counter) {
        case Counter::kOpsDispatched:
            return "ops";
        case Counter::kWouldSyncOps:
            return "would_sync_ops";
        case Counter::kHostReads:
            return "host_reads";
        case Counter::kMaskBuilds:
            return "mask_builds";
        case Counter::kMaskBuildsForward:
            return "mask_builds_forward";
        case Counter::kRoutingHostReads:
            return "routing_host_reads";
        case Counter::kOffloadBytes:
            return "offload_bytes";
        case Counter::kReloads:
            return "reloads";
        case Counter::kCount:
            break;
    }
    return "unknown";
}

}  // namespace glueprof
