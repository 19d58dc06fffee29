#include "profiler/ranks/RankClock.h"

#include <algorithm>
#include <cstdlib>

namespace glueprof {

RankClock estimateRankClock(const std::vector<TimestampNs>& rank0Times,
                            const std::vector<TimestampNs>& theirTimes, bool sameMachine) {
    RankClock clock;
    std::vector<TimestampNs> differences;
    for (std::size_t k = 0; k < rank0Times.size() && k < theirTimes.size(); ++k)
        differences.push_back(rank0Times[k] - theirTimes[k]);
    std::sort(differences.begin(), differences.end());
    clock.estimateNs = differences.empty() ? 0 : differences[differences.size() / 2];
    for (TimestampNs d : differences)
        clock.residualNs = std::max<TimestampNs>(clock.residualNs, std::abs(d - clock.estimateNs));
    clock.sameMachine = sameMachine;
    clock.offsetNs = sameMachine ? 0 : clock.estimateNs;
    return clock;
}

}  // namespace glueprof
