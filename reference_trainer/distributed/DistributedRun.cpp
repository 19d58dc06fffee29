#include "reference_trainer/distributed/DistributedRun.h"

#include "profiler/core/Error.h"
#include "reference_trainer/distributed/ClockAlignment.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

MergedRanks runSingleOnRanks(const TrainConfig& config, const std::vector<const Toggle*>& toggles,
                             int warmup, int steps, const RankRunRequest& request) {
    const RankEnvironment& environment = request.environment;
    const bool leader = environment.rank == 0;
    if (config.device == "cuda") {
        throw usageError(
            "--device cuda with several ranks is not available yet (each rank must take the GPU "
            "LOCAL_RANK and NCCL's waits must block); use --device cpu (Gloo) or one process");
    }
    RankGroup group(environment, config.device, request.timeout);
    const std::vector<RankClock> clocks = alignRankClocks(group);
    // `glueprof --nproc` names the launch (and merged what earlier launches left before it
    // started the ranks); under another launcher rank 0 names it and merges what earlier ones
    // left, before any rank records.
    const std::string launchId = environment.launchId.empty()
                                     ? group.shareFromLeader("glueprof/launch-id", newLaunchId())
                                     : environment.launchId;
    if (leader && environment.launchId.empty()) {
        const MergedRanks earlier = mergeLeftoverRankTraces(request.db, launchId);
        for (const std::string& line : leftoverNotices(earlier, request.db))
            if (request.notice) request.notice(line);
    }
    group.barrier();  // no rank records before those files are gone
    {
        CaptureSession session(rankTracePath(request.db, launchId, environment.rank), config.device,
                               leader ? request.notice : CaptureSession::Notice{});
        runSingle(config, toggles, warmup, steps, session,
                  leader ? request.progress : ProgressCallback{}, &group);
        session.close();
    }
    group.barrier();  // every rank's file is complete
    if (!leader) return {};
    return mergeRankTraces(request.db, launchId, environment.worldSize, clocks);
}

}  // namespace glueprof
