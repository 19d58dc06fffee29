#pragma once
// A rank's clock relative to rank 0's: what puts every rank's timestamps on one clock when their
// runs are merged (RankMerge). How the readings are taken is the launcher's (the reference
// trainer reads them at c10d barriers: reference_trainer/distributed/ClockAlignment.h); the
// estimate from them is here. Torch-free.
#include <string>
#include <vector>

#include "profiler/core/Event.h"

namespace glueprof {

struct RankClock {
    TimestampNs offsetNs = 0;    // added to the rank's timestamps to put them on rank 0's clock
    TimestampNs estimateNs = 0;  // what the barrier readings estimated (0 for rank 0)
    TimestampNs residualNs = 0;  // the largest deviation of a reading from the estimate
    bool sameMachine = true;     // same boot id as rank 0: one clock, offset 0
    std::string host;
};

// A rank's clock from its readings and rank 0's, taken as both left the same barriers: the
// median difference (rank 0's − theirs) as the estimate, the largest deviation from it as the
// residual; the offset is the estimate, or 0 on rank 0's machine (`sameMachine`: one clock).
RankClock estimateRankClock(const std::vector<TimestampNs>& rank0Times,
                            const std::vector<TimestampNs>& theirTimes, bool sameMachine);

}  // namespace glueprof
