#include "reference_trainer/distributed/DistributedRun.h"

#include <functional>

#include "profiler/core/Error.h"
#include "reference_trainer/RecordingChecks.h"
#include "reference_trainer/distributed/ClockAlignment.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

namespace {

// What every rank does around its training: join the group, put the clocks on one timeline, name
// the launch, record into the rank's own file (`train`), and on rank 0 merge every rank's file.
MergedRanks onRanks(const std::string& device, const RankRunRequest& request,
                    const std::function<void(CaptureSession&, RankGroup&)>& train) {
    const RankEnvironment& environment = request.environment;
    const bool leader = environment.rank == 0;
    if (device == "cuda") {
        throw usageError(
            "--device cuda with several ranks is not available yet (each rank must take the GPU "
            "LOCAL_RANK and NCCL's waits must block); use --device cpu (Gloo) or one process");
    }
    RankGroup group(environment, device, request.timeout);
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
        CaptureSession session(rankTracePath(request.db, launchId, environment.rank), device,
                               leader ? request.notice : CaptureSession::Notice{});
        train(session, group);
        session.close();
    }
    group.barrier();  // every rank's file is complete
    if (!leader) return {};
    return mergeRankTraces(request.db, launchId, environment.worldSize, clocks);
}

}  // namespace

MergedRanks runSingleOnRanks(const TrainConfig& config, const std::vector<const Toggle*>& toggles,
                             int warmup, int steps, const RankRunRequest& request) {
    const bool leader = request.environment.rank == 0;
    return onRanks(config.device, request, [&](CaptureSession& session, RankGroup& group) {
        runSingle(config, toggles, warmup, steps, session,
                  leader ? request.progress : ProgressCallback{}, &group);
    });
}

AbOutcome runAbSuiteOnRanks(const AbRequest& request, const RankRunRequest& rankRequest,
                            const AbProgress& progress) {
    AbOutcome outcome;
    const std::vector<const Toggle*> toggles = chooseToggles(request, outcome.skipped);
    // Under any launcher: the device, this rank's memory for both arms and the database's
    // directory (the --nproc launcher checked the memory of all its ranks before starting them).
    checkTrainingRequest(request.config, rankRequest.db, 2);
    const bool leader = rankRequest.environment.rank == 0;
    AbProgress heard = progress;
    if (!leader) heard = AbProgress{};  // the other ranks keep quiet
    std::vector<ToggleRuns> recorded;
    const MergedRanks merged =
        onRanks(request.config.device, rankRequest, [&](CaptureSession& session, RankGroup& group) {
            recorded = runAbToggles(request, toggles, session, heard, &group);
        });
    if (!leader) return outcome;
    // Rank 0's runs come first in the merge, in the order it recorded them: each toggle's
    // baseline, then its optimized arm.
    for (std::size_t k = 0; k < recorded.size(); ++k) {
        if (2 * k + 1 >= merged.runs.size()) break;
        outcome.comparisons.push_back(
            ToggleRuns{recorded[k].toggle, AbRuns{merged.runs[2 * k], merged.runs[2 * k + 1]}});
    }
    return outcome;
}

}  // namespace glueprof
