#include "reference_trainer/distributed/RankMerge.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

#include "profiler/core/RunCopy.h"
#include "profiler/core/TraceReader.h"
#include "reference_trainer/distributed/RankEnvironment.h"

namespace glueprof {
namespace {

// The run's environment JSON with what the merge knows of its clock.
std::string withClockAlignment(const std::string& environmentJson, const RankClock* clock) {
    nlohmann::json environment = nlohmann::json::parse(environmentJson, nullptr, false);
    if (!environment.is_object()) environment = nlohmann::json::object();
    if (clock == nullptr) {
        environment["clock_alignment"] = nullptr;  // not measured (a rank failed before)
    } else {
        environment["clock_alignment"] = {{"offset_ns", clock->offsetNs},
                                          {"estimate_ns", clock->estimateNs},
                                          {"residual_ns", clock->residualNs},
                                          {"same_machine_as_rank_0", clock->sameMachine},
                                          {"host", clock->host}};
    }
    return environment.dump();
}

void removeTraceFiles(const std::string& path) {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
}

}  // namespace

MergedRanks mergeRankTraces(const std::string& db, int worldSize,
                            const std::vector<RankClock>& clocks) {
    MergedRanks merged;
    std::vector<std::vector<RunSummary>> runsByRank(static_cast<std::size_t>(worldSize));
    std::size_t runCount = 0;
    for (int rank = 0; rank < worldSize; ++rank) {
        const std::string path = rankTracePath(db, rank);
        if (!std::filesystem::exists(path)) {
            merged.missingRanks.push_back(rank);
            continue;
        }
        runsByRank[static_cast<std::size_t>(rank)] = TraceReader(path).listRuns();
        runCount = std::max(runCount, runsByRank[static_cast<std::size_t>(rank)].size());
    }
    if (merged.missingRanks.size() == static_cast<std::size_t>(worldSize)) return merged;
    TraceWriter writer(db);
    // Rank 0's copy of each run index: the group its counterparts join.
    std::vector<RunId> groupOf(runCount, 0);
    for (std::size_t k = 0; k < runCount; ++k) {
        for (int rank = 0; rank < worldSize; ++rank) {
            const auto& runs = runsByRank[static_cast<std::size_t>(rank)];
            if (k >= runs.size()) continue;
            const RunSummary& summary = runs[k];
            const std::string path = rankTracePath(db, rank);
            const TraceModel model = TraceReader(path).loadRun(summary.id);
            const RankClock* clock =
                clocks.size() == static_cast<std::size_t>(worldSize) ? &clocks[rank] : nullptr;
            RunInfo info = runInfoOf(summary);
            info.environmentJson = withClockAlignment(info.environmentJson, clock);
            // The run's group in its own file is the id of one of that file's runs (an A/B's
            // baseline); in DB it is rank 0's copy of that run. A plain run forms its own group.
            std::size_t groupIndex = k;
            if (summary.identity.abGroup != 0) {
                for (std::size_t j = 0; j < runs.size(); ++j) {
                    if (runs[j].id == summary.identity.abGroup) groupIndex = j;
                }
            }
            info.identity.abGroup =
                groupOf[groupIndex] != 0 ? groupOf[groupIndex] : TraceWriter::kStartsAbGroup;
            const RunId id = writer.beginRun(info);
            if (groupOf[groupIndex] == 0) groupOf[groupIndex] = id;
            copyRunContents(writer, id, model, clock != nullptr ? clock->offsetNs : 0);
            writer.endRun(id, finalStatusOf(summary));
            merged.runs.push_back(id);
        }
    }
    writer.close();
    for (int rank = 0; rank < worldSize; ++rank) removeTraceFiles(rankTracePath(db, rank));
    return merged;
}

}  // namespace glueprof
