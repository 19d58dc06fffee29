#include "reference_trainer/distributed/DistributedRun.h"

#include <fmt/format.h>

#include "reference_trainer/distributed/ClockAlignment.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

MergedRanks runSingleOnRanks(const TrainConfig& config, const std::vector<const Toggle*>& toggles,
                             int warmup, int steps, const RankRunRequest& request) {
    const RankEnvironment& environment = request.environment;
    const bool leader = environment.rank == 0;
    RankGroup group(environment, config.device, request.timeout);
    const std::vector<RankClock> clocks = alignRankClocks(group);
    if (leader) {
        // Files an earlier run left unmerged (its launcher was killed): their runs go into the
        // database now, as they were, so this run's files start empty.
        const MergedRanks earlier = mergeRankTraces(request.db, environment.worldSize, {});
        if (!earlier.runs.empty() && request.notice) {
            request.notice(
                fmt::format("merged {} run(s) an earlier multi-process run left in "
                            "'{}.rank-*' into '{}' first",
                            earlier.runs.size(), request.db, request.db));
        }
    }
    group.barrier();  // no rank records before those files are gone
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
