#include "reference_trainer/distributed/DistributedRun.h"

#include "reference_trainer/distributed/ClockAlignment.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

MergedRanks runSingleOnRanks(const TrainConfig& config, const std::vector<const Toggle*>& toggles,
                             int warmup, int steps, const RankRunRequest& request) {
    const RankEnvironment& environment = request.environment;
    const bool leader = environment.rank == 0;
    RankGroup group(environment, config.device, request.timeout);
    const std::vector<RankClock> clocks = alignRankClocks(group);
    {
        CaptureSession session(rankTracePath(request.db, environment.rank), config.device,
                               leader ? request.notice : CaptureSession::Notice{});
        runSingle(config, toggles, warmup, steps, session,
                  leader ? request.progress : ProgressCallback{}, &group);
        session.close();
    }
    group.barrier();  // every rank's file is complete
    if (!leader) return {};
    return mergeRankTraces(request.db, environment.worldSize, clocks);
}

}  // namespace glueprof
