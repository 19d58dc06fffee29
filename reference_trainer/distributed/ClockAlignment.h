#pragma once
// Putting every rank's timestamps on rank 0's clock. Each rank reads its clock (Clock::nowNs) as it
// leaves each of several c10d barriers; rank 0 takes, per rank, the median difference to its own
// readings as the offset and the largest deviation from it as the residual error. Ranks on one
// machine share one clock (the same boot id): their offset is zero by construction, and the
// estimate says how good the method is (its residual is the barriers' exit skew).
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/core/Event.h"

namespace glueprof {

class RankGroup;

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

// Collective: every rank calls it at the same point. Rank 0 gets one entry per rank (rank order);
// the others get an empty vector.
std::vector<RankClock> alignRankClocks(RankGroup& group, int rounds = 9);

}  // namespace glueprof
