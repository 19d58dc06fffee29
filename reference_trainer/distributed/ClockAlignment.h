#pragma once
// Putting every rank's timestamps on rank 0's clock. Each rank reads its clock (Clock::nowNs) as it
// leaves each of several c10d barriers; rank 0 takes, per rank, the median difference to its own
// readings as the offset and the largest deviation from it as the residual error. Ranks on one
// machine share one clock (the same boot id): their offset is zero by construction, and the
// estimate says how good the method is (its residual is the barriers' exit skew).
#include <vector>

#include "profiler/ranks/RankClock.h"

namespace glueprof {

class RankGroup;

// Collective: every rank calls it at the same point. Rank 0 gets one entry per rank (rank order);
// the others get an empty vector.
std::vector<RankClock> alignRankClocks(RankGroup& group, int rounds = 9);

}  // namespace glueprof
