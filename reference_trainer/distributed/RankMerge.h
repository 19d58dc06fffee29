#pragma once
// The end of a multi-process run: each rank recorded into its own file (SQLite has one writer),
// DB.rank-R (rankTracePath); rank 0 — or `glueprof --nproc`'s launcher when a rank failed — moves
// their runs into DB, on rank 0's clock, and removes the files. Torch-free.
#include <string>
#include <vector>

#include "profiler/core/TraceWriter.h"
#include "reference_trainer/distributed/ClockAlignment.h"

namespace glueprof {

struct MergedRanks {
    // The runs now in DB: for each run a rank recorded (in its order), one per rank, rank order.
    std::vector<RunId> runs;
    std::vector<int> missingRanks;  // ranks whose file was not there (nothing of them merged)
};

// Merges DB.rank-0 .. DB.rank-(worldSize-1) into DB. The k-th run of every rank file belongs
// with the k-th of the others: they form one group (ab_group: rank 0's copy; an A/B's arms keep
// their pairing), each keeps its rank and world size, and each rank's timestamps move by its
// clock's offset (clocks: one per rank, from alignRankClocks; empty when not measured), which the
// run's environment records as `clock_alignment`. A run a rank never ended is stored aborted with
// every step it finished. The rank files are removed once DB holds their runs.
MergedRanks mergeRankTraces(const std::string& db, int worldSize,
                            const std::vector<RankClock>& clocks);

}  // namespace glueprof
