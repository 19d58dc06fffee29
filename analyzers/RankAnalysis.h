#pragma once
// Across the ranks of one data-parallel run (the runs of one group, rank order, on one clock):
// - per measured step, the slowest rank and the spread (its step time − the median rank's);
// - per collective (the `comm` ranges that share a sequence number, `correlation`, on every rank),
//   the straggler time: how long the first rank to start it waited for the last one to start
//   (per step: the largest, and the sum);
// - per rank, communication/computation overlap as Holistic Trace Analysis defines it,
//   |comm ∩ compute| / |comm| over measured steps: on a GPU, comm = its communication (NCCL)
//   kernels and compute = its other kernels, as HTA; without communication kernels (Gloo on CPU),
//   comm = its comm ranges and compute = its aten ops and other kernels.
// docs/metrics.md, "Ranks".
#include <cstdint>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct RankStep {
    std::int32_t step = 0;
    int slowestRank = 0;  // index into the ranks given
    double slowestMs = 0.0;
    double medianMs = 0.0;
    double spreadMs = 0.0;  // slowest − median
    // Per collective, last start − first start: how long the first rank to start it waited for
    // the last one. The step's largest, and their sum (asynchronous collectives overlap, so the
    // sum can exceed the step).
    double stragglerMs = 0.0;
    double stragglerTotalMs = 0.0;
    int collectives = 0;  // collectives of the step found on every rank
};

struct RankAnalysisResult {
    std::vector<RankStep> steps;  // measured steps every rank has, in step order
    double medianSpreadMs = 0.0;
    double medianStragglerMs = 0.0;    // of the steps' largest
    std::vector<double> overlapRatio;  // per rank; -1 where the rank has no comm in measured steps
    std::vector<int> slowestCount;     // per rank: measured steps it was the slowest in
};

// `ranks`: one trace per rank, rank order. Fewer than 2: an empty result.
RankAnalysisResult analyzeRanks(const std::vector<const TraceModel*>& ranks);

// One collective — a sequence number — on every rank that issued it: each rank's first comm range
// of that number (the Ranks view lines them up; analyzeRanks takes its straggler time from them).
struct CollectiveInstances {
    std::int64_t sequence = 0;
    std::int32_t step = kNoTag;         // rank 0's step tag of it (else the first rank's)
    std::vector<const Event*> perRank;  // rank order; null where a rank has none
    bool onEveryRank() const;
    TimestampNs stragglerNs() const;  // last start − first start over the ranks that have it
};
// The collectives of measured or warm-up step `step`, in sequence order (pointers into `ranks`).
std::vector<CollectiveInstances> collectivesOfStep(const std::vector<const TraceModel*>& ranks,
                                                   std::int32_t step);

}  // namespace glueprof
