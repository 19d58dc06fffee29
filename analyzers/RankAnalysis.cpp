#include "analyzers/RankAnalysis.h"

#include <algorithm>
#include <limits>
#include <map>

#include "analyzers/GlueOverhead.h"
#include "analyzers/Intervals.h"
#include "analyzers/Statistics.h"

namespace glueprof {
namespace {

// Each collective of a rank (its comm ranges, by sequence number): the one that starts first.
std::map<std::int64_t, const Event*> collectiveStarts(const TraceModel& t) {
    std::map<std::int64_t, const Event*> starts;
    for (std::size_t lane = 0; lane < t.lanes().size(); ++lane) {
        for (const Event& e : t.eventsOnLane(lane)) {
            if (e.kind != EventKind::kRange || e.category != Category::kComm || e.correlation <= 0)
                continue;
            auto [it, added] = starts.try_emplace(e.correlation, &e);
            if (!added && e.startNs < it->second->startNs) it->second = &e;
        }
    }
    return starts;
}

// Every collective, with its instance on each rank (null where a rank has none), in sequence
// order.
std::vector<CollectiveInstances> allCollectives(const std::vector<const TraceModel*>& ranks) {
    std::vector<std::map<std::int64_t, const Event*>> starts;
    for (const TraceModel* t : ranks) starts.push_back(collectiveStarts(*t));
    std::map<std::int64_t, CollectiveInstances> bySequence;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        for (const auto& [sequence, event] : starts[r]) {
            CollectiveInstances& c = bySequence[sequence];
            c.sequence = sequence;
            c.perRank.resize(ranks.size(), nullptr);
            c.perRank[r] = event;
            if (r == 0 || c.step == kNoTag) c.step = event->step;
        }
    }
    std::vector<CollectiveInstances> all;
    for (auto& [sequence, c] : bySequence) all.push_back(std::move(c));
    return all;
}

// HTA's overlap of one rank over its measured steps; -1 without communication. On a GPU (the rank
// has communication kernels: NCCL) over kernels, as HTA computes it: comm = communication kernels,
// compute = the other kernels. Without (Gloo on CPU) over the host: comm = comm ranges, compute =
// aten ops and kernels of any other category.
double overlapRatio(const TraceModel& t) {
    std::vector<Interval> windows;
    for (const StepInfo& s : t.steps())
        if (!s.warmup) windows.push_back(Interval{s.startNs, s.endNs});
    const IntervalSet measured = unionOf(windows);
    std::vector<Interval> hostComm, kernelComm, hostCompute, kernelCompute;
    for (std::size_t lane = 0; lane < t.lanes().size(); ++lane) {
        for (const Event& e : t.eventsOnLane(lane)) {
            const Interval span{e.startNs, e.endNs};
            if (e.kind == EventKind::kKernel) {
                const bool comm = e.category == Category::kComm || isCommKernelName(t.name(e.name));
                (comm ? kernelComm : kernelCompute).push_back(span);
                if (!comm) hostCompute.push_back(span);
            } else if (e.kind == EventKind::kRange && e.category == Category::kComm) {
                hostComm.push_back(span);
            } else if (e.kind == EventKind::kOp && e.category != Category::kComm) {
                hostCompute.push_back(span);
            }
        }
    }
    const bool onDevice = !kernelComm.empty();
    const IntervalSet commSet = intersectionOf(unionOf(onDevice ? kernelComm : hostComm), measured);
    const TimestampNs commNs = totalLength(commSet);
    if (commNs <= 0) return -1.0;
    const IntervalSet compute = unionOf(onDevice ? kernelCompute : hostCompute);
    return static_cast<double>(totalLength(intersectionOf(commSet, compute))) /
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
    struct Straggler {
        TimestampNs largest = 0;
        TimestampNs total = 0;
        int count = 0;
    };
    std::map<std::int32_t, Straggler> straggler;
    for (const CollectiveInstances& c : allCollectives(ranks)) {
        if (!c.onEveryRank()) continue;
        Straggler& s = straggler[c.step];
        s.largest = std::max(s.largest, c.stragglerNs());
        s.total += c.stragglerNs();
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

bool CollectiveInstances::onEveryRank() const {
    return std::none_of(perRank.begin(), perRank.end(),
                        [](const Event* e) { return e == nullptr; });
}

TimestampNs CollectiveInstances::stragglerNs() const {
    TimestampNs first = 0, last = 0;
    bool any = false;
    for (const Event* e : perRank) {
        if (e == nullptr) continue;
        first = any ? std::min(first, e->startNs) : e->startNs;
        last = any ? std::max(last, e->startNs) : e->startNs;
        any = true;
    }
    return last - first;
}

std::vector<CollectiveInstances> collectivesOfStep(const std::vector<const TraceModel*>& ranks,
                                                   std::int32_t step) {
    std::vector<CollectiveInstances> ofStep;
    for (CollectiveInstances& c : allCollectives(ranks))
        if (c.step == step) ofStep.push_back(std::move(c));
    return ofStep;
}

}  // namespace glueprof
