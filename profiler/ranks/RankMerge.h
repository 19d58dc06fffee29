#pragma once
// The end of a multi-process run: each rank recorded into its own file (SQLite has one writer),
// DB.LAUNCH.rank-R (rankTracePath); rank 0 — or `glueprof --nproc`'s launcher when a rank failed —
// moves their runs into DB, on rank 0's clock, and removes the files. Torch-free.
#include <optional>
#include <string>
#include <vector>

#include "profiler/core/RecordSink.h"
#include "profiler/core/TraceModel.h"
#include "profiler/ranks/RankClock.h"

namespace glueprof {

struct MergedRanks {
    // The runs now in DB, rank by rank (each rank's in its order).
    std::vector<RunId> runs;
    std::vector<int> missingRanks;  // ranks whose file was not there (nothing of them merged)
    // Files that could not be read (damaged, cut short): renamed to FILE.unmerged, kept as they
    // were.
    std::vector<std::string> unreadable;
};

// Merges the rank files of launch `launchId`, DB.LAUNCH.rank-0 .. rank-(worldSize-1), into DB. The
// k-th run of every rank file belongs with the k-th of the others: they form one group (ab_group:
// the lowest rank's copy; an A/B's arms keep their pairing), each keeps its rank and world size,
// and each rank's timestamps move by its clock's offset (clocks: one per rank, from
// alignRankClocks; empty when not measured, and `clock_alignment` is then null in the run's
// environment). A run a rank never ended is stored aborted with every step it finished. Rank by
// rank, a file is removed as soon as DB holds its runs.
MergedRanks mergeRankTraces(const std::string& db, const std::string& launchId, int worldSize,
                            const std::vector<RankClock>& clocks);
// What a launcher adds to every run it merges, in the same append (the run is stored once, whole):
// diagnostics (`profile`: how the program ended), and the status stored instead of the run's own.
struct MergedRunEnding {
    std::vector<Diagnostic> diagnostics;
    std::optional<RunStatus> status;
};

// The same for the ranks `ranks` only (ranks need not start at 0: a process with RANK=2 alone,
// one node's ranks of a larger job); clocks[R] is rank R's when clocks has one for it.
MergedRanks mergeRankTraces(const std::string& db, const std::string& launchId,
                            const std::vector<int>& ranks, const std::vector<RankClock>& clocks,
                            const MergedRunEnding& ending = {});

// Merges every launch's rank files found beside DB (DB.LAUNCH.rank-R) except `exceptLaunchId`'s
// and those of a launch whose process still runs (launchOwnerPid): what earlier runs left when
// their launcher was killed or a rank failed under another launcher.
MergedRanks mergeLeftoverRankTraces(const std::string& db, const std::string& exceptLaunchId = "");

// What a merge left out — ranks without a file, files that could not be read — as notice lines.
std::vector<std::string> unmergedNotices(const MergedRanks& merged, const std::string& db);
// What merging earlier launches' leftovers did, as notice lines for the user (none when nothing).
std::vector<std::string> leftoverNotices(const MergedRanks& merged, const std::string& db);

}  // namespace glueprof
