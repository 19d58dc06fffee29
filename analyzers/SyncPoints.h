#pragma once
// Sync points: would-sync ops and host reads per step, per layer and per range, each with the
// op that caused it and the innermost range around it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct SyncPoint {
    std::int32_t step = kNoTag;
    std::int32_t layer = kNoTag;
    std::string op;  // the op that blocks (or would block) the host
    // Host syncs: the outermost op around it on its lane, the call the program made
    // (aten::is_nonzero for a Python `if` on a tensor, where `op` is aten::_local_scalar_dense);
    // `op` itself when no op encloses another.
    std::string userOp;
    std::string range;  // the innermost range around it on the same lane ("" when none)
    // The innermost range around it that is a MoE layer's routing (NameMatch's isMoeRangeName),
    // a module frame without its instance number; "" when none.
    std::string moeRange;
    TimestampNs startNs = 0;
    TimestampNs durationNs = 0;
    bool hostRead = false;  // reads a device value back (not only an output-size sync)
    // Host syncs (GPU view): the device work the sync waits for, as HTA's critical path links a
    // sync to the last work before it: of the kernels, copies and memsets launched before the
    // sync began (or by its own call), the one that ends last — on the stream it waits for when
    // the trace says which (an imported trace's `host sync` marker), else on any stream. It may
    // have finished already (durationNs says whether the host waited); "" when none.
    std::string awaited;
};

struct SyncGroup {
    std::string key;
    std::int64_t count = 0;
    double totalMs = 0.0;
};

struct SyncPointsResult {
    // CPU view: ops that would block the host on CUDA (flagged by the op observer).
    std::vector<SyncPoint> points;  // measured (non-warm-up) steps only, in time order per lane
    std::map<std::int32_t, std::int64_t> perStep;           // step -> sync points
    std::map<std::int32_t, std::int64_t> hostReadsPerStep;  // step -> host reads
    std::vector<SyncGroup> byOp;                            // sorted by count, descending
    std::vector<SyncGroup> byLayer;                         // key "layer N" or "outside layers"
    std::vector<SyncGroup> byRange;
    double medianPerStep = 0.0;

    // GPU view: the host really blocked (CUPTI synchronization records and blocking device->host
    // copies, on the calling thread's lane). `op` is the aten op around it, `range` the innermost
    // range, durationNs the blocked time. Empty, with `hostSyncsCaptured` false, when no GPU was
    // captured.
    bool hostSyncsCaptured = false;
    std::vector<SyncPoint> hostSyncs;
    std::map<std::int32_t, std::int64_t> hostSyncsPerStep;
    std::map<std::int32_t, TimestampNs> blockedNsPerStep;
    std::vector<SyncGroup> hostSyncsByOp;       // sorted by count
    std::vector<SyncGroup> hostSyncsByAwaited;  // key: the awaited work ("(nothing)" when none)
    double medianHostSyncsPerStep = 0.0;
    double medianSyncBlockedMs = 0.0;  // per step
};

SyncPointsResult analyzeSyncPoints(const TraceModel& trace);

}  // namespace glueprof
