#pragma once
// The sync points of two runs side by side (a comparison's baseline and optimized run), decided
// once for every face that shows them: `compare`'s text and the Markdown report's comparison.
#include <string>
#include <vector>

#include "analyzers/SyncPoints.h"

namespace glueprof {

// An op's sync points per measured step in each run.
struct SyncOpPerStep {
    std::string op;
    double baseline = 0.0;
    double optimized = 0.0;
};

struct SyncComparison {
    const SyncPointsResult* baseline = nullptr;
    const SyncPointsResult* optimized = nullptr;
    bool hostSyncsCaptured = false;  // either run has the GPU's host syncs (CUPTI)
    // Every op that would sync in either run: the baseline's, then the optimized run's others.
    std::vector<SyncOpPerStep> opsPerStep;
    // A run's syncs by op over all its measured steps, as listed: the GPU's host syncs when that
    // run captured them, else the ops that would sync.
    static const std::vector<SyncGroup>& listedByOp(const SyncPointsResult& run) {
        return run.hostSyncsCaptured ? run.hostSyncsByOp : run.byOp;
    }
};

SyncComparison compareSyncPoints(const SyncPointsResult& baseline,
                                 const SyncPointsResult& optimized);

}  // namespace glueprof
