#include "reference_trainer/distributed/DistributedRun.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "profiler/core/Error.h"
#include "profiler/core/TraceReader.h"
#include "reference_trainer/RecordingChecks.h"
#include "reference_trainer/distributed/ClockAlignment.h"
#include "reference_trainer/distributed/RankGroup.h"
#include "reference_trainer/distributed/RendezvousWatchdog.h"

namespace glueprof {

namespace {

// Runs WAIT (a collective: every rank must come) so that SIGINT/SIGTERM end the process at once
// (libtorch's waits cannot be interrupted); the collective's own --rank-timeout ends a wait for a
// rank that never comes.
template <typename Wait>
auto signalsEndTheWait(const RankEnvironment& environment, const char* what, Wait&& wait) {
    const RendezvousWatchdog watchdog(
        fmt::format("glueprof (rank {} of {}): ", environment.rank, environment.worldSize),
        fmt::format("waiting for the other ranks ({})", what), "", "",
        RendezvousWatchdog::kNoDeadline);
    return wait();
}

// What every rank does around its training: join the group, put the clocks on one timeline, name
// the launch, record into the rank's own file (`train`), and on rank 0 merge every rank's file.
MergedRanks onRanks(const TrainConfig& config, const RankRunRequest& request,
                    const std::function<void(CaptureSession&, RankGroup&)>& train) {
    const RankEnvironment& environment = request.environment;
    const bool leader = environment.rank == 0;
    std::optional<RankGroup> group;
    group.emplace(environment, config.device, config.cudaDevice, request.timeout);
    const std::vector<RankClock> clocks = signalsEndTheWait(
        environment, "aligning the ranks' clocks", [&] { return alignRankClocks(*group); });
    // `glueprof --nproc` names the launch (and merged what earlier launches left before it
    // started the ranks); under another launcher rank 0 names it and merges what earlier ones
    // left, before any rank records.
    const std::string launchId =
        environment.launchId.empty()
            ? signalsEndTheWait(
                  environment, "sharing the launch id",
                  [&] { return group->shareFromLeader("glueprof/launch-id", newLaunchId()); })
            : environment.launchId;
    if (leader && environment.launchId.empty()) {
        const MergedRanks earlier = mergeLeftoverRankTraces(request.db, launchId);
        for (const std::string& line : leftoverNotices(earlier, request.db))
            if (request.notice) request.notice(line);
    }
    signalsEndTheWait(environment, "the barrier before recording", [&] {
        group->barrier();  // no rank records before those files are gone
        return 0;
    });
    {
        CaptureSession session(rankTracePath(request.db, launchId, environment.rank), config.device,
                               leader ? request.notice : CaptureSession::Notice{});
        train(session, *group);
        session.close();
    }
    signalsEndTheWait(environment, "the barrier after recording", [&] {
        group->barrier();  // every rank's file is complete
        return 0;
    });
    // Every rank leaves the group here, together (NCCL's shutdown while peers are still in it),
    // before rank 0's merge, which needs no collective.
    group.reset();
    if (!leader) return {};
    MergedRanks merged = mergeRankTraces(request.db, launchId, environment.worldSize, clocks);
    for (const std::string& line : unmergedNotices(merged, request.db))
        if (request.notice) request.notice(line);
    return merged;
}

// Each recorded toggle's arms in DB after the merge: its lowest rank's pair (rank 0's, unless
// rank 0's file could not be merged).
std::vector<ToggleRuns> mergedArms(const std::string& db, const MergedRanks& merged,
                                   const std::vector<ToggleRuns>& recorded) {
    std::vector<RunSummary> runs;
    for (const RunSummary& run : TraceReader(db).listRuns())
        if (std::find(merged.runs.begin(), merged.runs.end(), run.id) != merged.runs.end())
            runs.push_back(run);
    std::vector<ToggleRuns> arms;
    for (std::size_t k = 0; k < recorded.size(); ++k) {
        // The k-th A/B each rank recorded: its group is that of the k-th baseline in DB.
        std::map<int, AbRuns> byRank;
        std::size_t baselines = 0;
        RunId group = 0;
        for (const RunSummary& run : runs) {
            if (run.identity.arm == Arm::kBaseline && group == 0 && baselines++ == k)
                group = run.identity.abGroup;
        }
        for (const RunSummary& run : runs) {
            if (group == 0 || run.identity.abGroup != group) continue;
            AbRuns& pair = byRank[run.identity.rank.value_or(0)];
            (run.identity.arm == Arm::kBaseline ? pair.baseline : pair.optimized) = run.id;
        }
        for (const auto& [rank, pair] : byRank) {
            if (pair.baseline == 0 || pair.optimized == 0) continue;
            arms.push_back(ToggleRuns{recorded[k].toggle, pair});
            break;
        }
    }
    return arms;
}

}  // namespace

MergedRanks runSingleOnRanks(const TrainConfig& config, const std::vector<const Toggle*>& toggles,
                             int warmup, int steps, const RankRunRequest& request) {
    const bool leader = request.environment.rank == 0;
    return onRanks(config, request, [&](CaptureSession& session, RankGroup& group) {
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
    // As in one process (runAbSuite): the arms' losses are compared bit for bit.
    if (request.config.device == "cuda") makeCudaDeterministic();
    std::vector<ToggleRuns> recorded;
    const MergedRanks merged =
        onRanks(request.config, rankRequest, [&](CaptureSession& session, RankGroup& group) {
            recorded = runAbToggles(request, toggles, session, heard, &group);
        });
    if (!leader) return outcome;
    outcome.comparisons = mergedArms(rankRequest.db, merged, recorded);
    return outcome;
}

}  // namespace glueprof
