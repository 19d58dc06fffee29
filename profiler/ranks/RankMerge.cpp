#include "profiler/ranks/RankMerge.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"
#include "profiler/core/RunCopy.h"
#include "profiler/core/RunMetadata.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/ranks/RankEnvironment.h"

namespace glueprof {
namespace {

// Whether the process that made `launchId` still runs (kill with signal 0 only asks; EPERM: it
// runs as another user).
bool launchIsLive(const std::string& launchId) {
    const int pid = launchOwnerPid(launchId);
    return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

// The run's environment JSON with what the merge knows of its clock.
std::string withClockAlignment(const std::string& environmentJson, const RankClock* clock) {
    nlohmann::json environment = storedObjectOrEmpty(environmentJson);
    if (clock == nullptr) {
        environment[envKey(EnvironmentKey::kClockAlignment)] =
            nullptr;  // not measured (a rank failed before)
    } else {
        environment[envKey(EnvironmentKey::kClockAlignment)] = {
            {"offset_ns", clock->offsetNs},
            {"estimate_ns", clock->estimateNs},
            {"residual_ns", clock->residualNs},
            {"same_machine_as_rank_0", clock->sameMachine},
            {"host", clock->host}};
    }
    return environment.dump();
}

// The runs of one rank file, or nullopt (the file renamed to FILE.unmerged) when it cannot be read.
std::optional<std::vector<RunSummary>> readableRuns(const std::string& path, MergedRanks& merged) {
    try {
        return TraceReader(path).listRuns();
    } catch (const GlueprofError&) {
        std::error_code ec;
        std::filesystem::rename(path, path + ".unmerged", ec);
        merged.unreadable.push_back(path);
        return std::nullopt;
    }
}

}  // namespace

MergedRanks mergeRankTraces(const std::string& db, const std::string& launchId, int worldSize,
                            const std::vector<RankClock>& clocks) {
    std::vector<int> ranks(static_cast<std::size_t>(std::max(worldSize, 0)));
    for (int rank = 0; rank < worldSize; ++rank) ranks[static_cast<std::size_t>(rank)] = rank;
    return mergeRankTraces(
        db, launchId, ranks,
        clocks.size() == static_cast<std::size_t>(worldSize) ? clocks : std::vector<RankClock>{});
}

MergedRanks mergeRankTraces(const std::string& db, const std::string& launchId,
                            const std::vector<int>& ranks, const std::vector<RankClock>& clocks,
                            const MergedRunEnding& ending) {
    MergedRanks merged;
    std::map<int, std::vector<RunSummary>> runsByRank;  // the ranks whose file can be read
    std::size_t runCount = 0;
    for (int rank : ranks) {
        const std::string path = rankTracePath(db, launchId, rank);
        if (!std::filesystem::exists(path)) {
            merged.missingRanks.push_back(rank);
            continue;
        }
        std::optional<std::vector<RunSummary>> runs = readableRuns(path, merged);
        if (!runs) continue;
        runCount = std::max(runCount, runs->size());
        runsByRank[rank] = std::move(*runs);
    }
    if (runsByRank.empty()) return merged;
    TraceStore target(db);
    // The lowest rank's copy of each run index: the group its counterparts join.
    std::vector<RunId> groupOf(runCount, 0);
    for (const auto& [rank, runs] : runsByRank) {
        const std::string path = rankTracePath(db, launchId, rank);
        // The reader's connection is closed before the file goes: a database removed under an
        // open connection can leave its -wal behind (ProfileFuzz saw one once: SIGTERM during a
        // profile's merge).
        auto reader = std::make_unique<TraceReader>(path);
        const RankClock* clock =
            rank >= 0 && static_cast<std::size_t>(rank) < clocks.size() ? &clocks[rank] : nullptr;
        for (std::size_t k = 0; k < runs.size(); ++k) {
            const RunSummary& summary = runs[k];
            RunInfo info = runInfoOf(summary);
            info.environmentJson = withClockAlignment(info.environmentJson, clock);
            // The run's group in its own file is the id of one of that file's runs (an A/B's
            // baseline); in DB it is the lowest rank's copy of that run. A plain run forms its
            // own group with its counterparts.
            std::size_t groupIndex = k;
            if (summary.identity.abGroup != 0) {
                for (std::size_t j = 0; j < runs.size(); ++j) {
                    if (runs[j].id == summary.identity.abGroup) groupIndex = j;
                }
            }
            info.identity.abGroup = groupOf[groupIndex] != 0 ? groupOf[groupIndex] : kStartsAbGroup;
            const RunId id = target.beginRun(info);
            if (groupOf[groupIndex] == 0) groupOf[groupIndex] = id;
            // Read as it is copied, written in batches: memory flat however long the rank ran.
            RunAppend append(target, id);
            copyStoredRun(append, *reader, summary.id,
                          RunCopyShift{clock != nullptr ? clock->offsetNs : 0, 0, 0});
            for (const Diagnostic& d : ending.diagnostics)
                append.diagnostic(d.name, d.value, d.detail);
            append.finish(ending.status.value_or(finalStatusOf(summary)));  // the status last
            merged.runs.push_back(id);
        }
        reader.reset();
        removeTraceDatabase(path);  // every run of the rank's file is in DB
    }
    target.close();
    return merged;
}

std::vector<std::string> leftoverNotices(const MergedRanks& merged, const std::string& db) {
    std::vector<std::string> lines;
    if (!merged.runs.empty()) {
        lines.push_back(fmt::format(
            "merged {} run(s) that earlier runs (a killed profile, a rank that failed) left in "
            "'{}.*.rank-*' into '{}' first",
            merged.runs.size(), db, db));
    }
    for (const std::string& line : unmergedNotices(merged, db)) lines.push_back(line);
    return lines;
}

std::vector<std::string> unmergedNotices(const MergedRanks& merged, const std::string& db) {
    std::vector<std::string> lines;
    for (int rank : merged.missingRanks)
        lines.push_back(fmt::format("rank {}'s file was not there: nothing of rank {} is in '{}'",
                                    rank, rank, db));
    for (const std::string& file : merged.unreadable)
        lines.push_back(fmt::format("'{}' could not be read; kept as '{}.unmerged'", file, file));
    return lines;
}

MergedRanks mergeLeftoverRankTraces(const std::string& db, const std::string& exceptLaunchId) {
    // DB.LAUNCH.rank-R beside DB: the launches and the highest rank of each.
    const std::string prefix = std::filesystem::path(db).filename().string() + ".";
    std::map<std::string, std::vector<int>> launches;  // and the ranks each left
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(directoryOf(db), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        const std::string rest = name.substr(prefix.size());
        const auto marker = rest.find(".rank-");
        if (marker == std::string::npos) continue;
        const std::string launch = rest.substr(0, marker);
        const std::string rank = rest.substr(marker + 6);
        // A launch id has no dot: DB.other.sqlite.LAUNCH.rank-R is another database's rank file
        // (ab --exec's scratch database beside DB). A launch whose process lives is still
        // recording: its files are its own, whatever else writes to DB meanwhile.
        if (launch.empty() || launch == exceptLaunchId || launch.find('.') != std::string::npos ||
            rank.empty() || rank.size() > 4 ||
            rank.find_first_not_of("0123456789") != std::string::npos || launchIsLive(launch))
            continue;
        launches[launch].push_back(std::stoi(rank));
    }
    MergedRanks all;
    for (auto& [launch, ranks] : launches) {
        std::sort(ranks.begin(), ranks.end());
        MergedRanks merged = mergeRankTraces(db, launch, ranks, {});
        all.runs.insert(all.runs.end(), merged.runs.begin(), merged.runs.end());
        all.unreadable.insert(all.unreadable.end(), merged.unreadable.begin(),
                              merged.unreadable.end());
    }
    return all;
}

}  // namespace glueprof
