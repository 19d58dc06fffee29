#include "app/report/SyncComparison.h"

#include <algorithm>

namespace glueprof {

namespace {

// `op`'s would-sync points per measured step of `run` (0 when it has none).
double perStep(const SyncPointsResult& run, const std::string& op) {
    for (const SyncGroup& g : run.byOp) {
        if (g.key == op) {
            return static_cast<double>(g.count) / std::max<std::size_t>(1, run.perStep.size());
        }
    }
    return 0.0;
}

}  // namespace

SyncComparison compareSyncPoints(const SyncPointsResult& baseline,
                                 const SyncPointsResult& optimized) {
    SyncComparison c;
    c.baseline = &baseline;
    c.optimized = &optimized;
    c.hostSyncsCaptured = baseline.hostSyncsCaptured || optimized.hostSyncsCaptured;
    std::vector<std::string> ops;
    for (const SyncGroup& g : baseline.byOp) ops.push_back(g.key);
    for (const SyncGroup& g : optimized.byOp) {
        if (std::find(ops.begin(), ops.end(), g.key) == ops.end()) ops.push_back(g.key);
    }
    for (const std::string& op : ops) {
        c.opsPerStep.push_back({op, perStep(baseline, op), perStep(optimized, op)});
    }
    return c;
}

}  // namespace glueprof
