#include "analyzers/RankAnalysis.h"

#include <algorithm>
#include <limits>
#include <map>

#include "analyzers/Intervals.h"
#include "analyzers/Statistics.h"

namespace glueprof {
namespace {

constexpr double kNsPerMs = 1e6;

// Start of each collective (comm range, by sequence number) of a rank: step and earliest start.
std::map<std::int64_t, std::pair<std::int32_t, TimestampNs>> collectiveStarts(const TraceModel& t) {
    std::map<std::int64_t, std::pair<std::int32_t, TimestampNs>> starts;
    for (std::size_t lane = 0; lane < t.lanes().size(); ++lane) {
        for (const Event& e : t.eventsOnLane(lane)) {
            if (e.kind != EventKind::kRange || e.category != Category::kComm || e.correlation <= 0)
                continue;
            auto [it, added] = starts.try_emplace(e.correlation, e.step, e.startNs);
            if (!added) it->second.second = std::min(it->second.second, e.startNs);
        }
    }
    return starts;
}

// HTA's overlap of one rank over its measured steps; -1 without communication.
double overlapRatio(const TraceModel& t) {
    std::vector<Interval> windows;
    for (const StepInfo& s : t.steps())
        if (!s.warmup) windows.push_back(Interval{s.startNs, s.endNs});
    const IntervalSet measured = unionOf(windows);
    std::vector<Interval> comm, compute;
    for (std::size_t lane = 0; lane < t.lanes().size(); ++lane) {
        for (const Event& e : t.eventsOnLane(lane)) {
            if (e.kind == EventKind::kRange && e.category == Category::kComm)
                comm.push_back(Interval{e.startNs, e.endNs});
            else if ((e.kind == EventKind::kOp || e.kind == EventKind::kKernel) &&
                     e.category != Category::kComm)
                compute.push_back(Interval{e.startNs, e.endNs});
        }
    }
    const IntervalSet commSet = intersectionOf(unionOf(comm), measured);
    const TimestampNs commNs = totalLength(commSet);
    if (commNs <= 0) return -1.0;
    return static_cast<double>(totalLength(intersectionOf(commSet, unionOf(compute)))) /
           static_cast<double>(commNs);
}

}  // namespace

RankAnalysisResult analyzeRanks(const std::vector<const TraceModel*>& ranks) {
    RankAnalysisResult result;
    if (ranks.size() < 2) return result;
    const std::size_t n = ranks.size();
    result.slowestCount.assign(n, 0);
    // Step wall times by step, per rank.
    std::map<std::int32_t, std::vector<double>> wall;
    for (std::size_t r = 0; r < n; ++r) {
        for (const StepInfo& s : ranks[r]->steps()) {
            if (s.warmup) continue;
            std::vector<double>& times = wall[s.step];
            times.resize(n, std::numeric_limits<double>::quiet_NaN());
            times[r] = static_cast<double>(s.endNs - s.startNs) / kNsPerMs;
        }
    }
    // Straggler time per step from the collectives every rank issued.
    std::vector<std::map<std::int64_t, std::pair<std::int32_t, TimestampNs>>> starts;
    for (const TraceModel* t : ranks) starts.push_back(collectiveStarts(*t));
    struct Straggler {
        TimestampNs largest = 0;
        TimestampNs total = 0;
        int count = 0;
    };
    std::map<std::int32_t, Straggler> straggler;
    for (const auto& [sequence, first] : starts[0]) {
        TimestampNs earliest = first.second, latest = first.second;
        bool everywhere = true;
        for (std::size_t r = 1; r < n && everywhere; ++r) {
            auto it = starts[r].find(sequence);
            if (it == starts[r].end()) {
                everywhere = false;
            } else {
                earliest = std::min(earliest, it->second.second);
                latest = std::max(latest, it->second.second);
            }
        }
        if (!everywhere) continue;
        Straggler& s = straggler[first.first];
        s.largest = std::max(s.largest, latest - earliest);
        s.total += latest - earliest;
        ++s.count;
    }
    std::vector<double> spreads, stragglers;
    for (const auto& [step, times] : wall) {
        if (std::any_of(times.begin(), times.end(), [](double t) { return t != t; })) continue;
        RankStep s;
        s.step = step;
        const auto slowest = std::max_element(times.begin(), times.end());
        s.slowestRank = static_cast<int>(slowest - times.begin());
        s.slowestMs = *slowest;
        s.medianMs = median(times);
        s.spreadMs = s.slowestMs - s.medianMs;
        auto found = straggler.find(step);
        if (found != straggler.end()) {
            s.stragglerMs = static_cast<double>(found->second.largest) / kNsPerMs;
            s.stragglerTotalMs = static_cast<double>(found->second.total) / kNsPerMs;
            s.collectives = found->second.count;
        }
        ++result.slowestCount[static_cast<std::size_t>(s.slowestRank)];
        spreads.push_back(s.spreadMs);
        stragglers.push_back(s.stragglerMs);
        result.steps.push_back(s);
    }
    result.medianSpreadMs = median(spreads);
    result.medianStragglerMs = median(stragglers);
    for (const TraceModel* t : ranks) result.overlapRatio.push_back(overlapRatio(*t));
    return result;
}

}  // namespace glueprof
