#pragma once
// Names of the structural ranges and of the per-step counters that writers emit and analyzers
// read. Part of the trace format (docs/schema.md): never rename; append new counters.
#include <cstddef>

namespace glueprof::names {

constexpr const char* kStep = "step";
constexpr const char* kLoadBatch = "load_batch";
constexpr const char* kForward = "forward";
constexpr const char* kBackward = "backward";
constexpr const char* kRecompute = "recompute";
constexpr const char* kOptimizer = "optimizer";
constexpr const char* kLayer = "layer";
constexpr const char* kLayerBackward = "layer_backward";  // the gradient of one checkpointed layer
constexpr const char* kMaskBuild = "build_packed_mask";
constexpr const char* kMoeRouting = "moe_routing";  // glue: which tokens go to which expert
constexpr const char* kMoeExperts = "moe_experts";  // math: the experts and the combine
constexpr const char* kOffload = "offload";         // copy: a layer input to host memory
constexpr const char* kReload = "reload";           // copy: it back to a device buffer
constexpr const char* kWaitReload = "wait_reload";  // the compute waiting for a reload
// comm: a gradient all-reduce across ranks (correlation: its sequence number in the process group,
// equal on every rank; bytes: its payload; layer: its bucket, or parameter index without buckets)
constexpr const char* kAllReduce = "all_reduce";
constexpr const char* kWaitAllReduce =
    "wait_all_reduce";  // comm: waiting for one to finish (exposed)
// A marker on the stream a host sync waits for (imported traces say which): its correlation is
// the sync's, so the sync points analyzer looks for the awaited work on that stream only.
constexpr const char* kHostSyncMarker = "host sync";
// glue: the calibration aid's fixed delay (optimizations/calibration/CalibrationDelay.h)
constexpr const char* kCalibrationDelay = "calibration_delay";

}  // namespace glueprof::names

namespace glueprof {

// The deterministic per-step counters (the `counters` table).
enum class Counter : std::size_t {
    kOpsDispatched = 0,  // top-level aten ops dispatched on traced threads
    kWouldSyncOps,       // top-level ops that block the host on CUDA (SyncOpTable)
    kHostReads,          // device values read back to the host (item, to_host)
    kMaskBuilds,         // packed attention masks built (forward and recompute)
    kMaskBuildsForward,  // of which in the forward pass
    kRoutingHostReads,   // sync points inside moe_routing ranges (counted by the op observer)
    kOffloadBytes,       // bytes of layer inputs copied to host memory
    kReloads,            // layer inputs copied back for the recompute
    kCount
};

// The counter's stored name ("ops", "mask_builds", ...).
constexpr const char* counterName(Counter counter) {
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
