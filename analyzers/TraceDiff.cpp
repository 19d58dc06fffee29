#include "analyzers/TraceDiff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "profiler/core/Error.h"

namespace glueprof {

const char* toString(DiffSide side) { return side == DiffSide::kHost ? "host" : "device"; }

const char* toString(NameChange change) {
    switch (change) {
        case NameChange::kAdded:
            return "added";
        case NameChange::kRemoved:
            return "removed";
        case NameChange::kMore:
            return "more";
        case NameChange::kFewer:
            return "fewer";
        case NameChange::kUnchanged:
            return "unchanged";
    }
    return "unknown";
}

namespace {

struct Totals {
    double count = 0.0;
    double ms = 0.0;
};
using TotalsByName = std::map<std::pair<std::string, DiffSide>, Totals>;

std::optional<DiffSide> sideOf(EventKind kind) {
    switch (kind) {
        case EventKind::kOp:
        case EventKind::kRange:
        case EventKind::kRuntime:
            return DiffSide::kHost;
        case EventKind::kKernel:
        case EventKind::kMemcpy:
        case EventKind::kMemset:
            return DiffSide::kDevice;
        default:
            return std::nullopt;  // syncs, markers, waits: derived or instantaneous
    }
}

// Per-step totals by name over `steps`.
TotalsByName totalsOf(const TraceModel& trace, const std::set<std::int32_t>& steps) {
    TotalsByName totals;
    for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
        for (const Event& e : trace.eventsOnLane(lane)) {
            auto side = sideOf(e.kind);
            if (!side || steps.count(e.step) == 0) continue;
            // Ranges on device lanes (gpu_user_annotation) are device-side names.
            const DiffSide where =
                trace.lanes()[lane].kind == LaneKind::kHostThread ? *side : DiffSide::kDevice;
            Totals& t = totals[{trace.name(e.name), where}];
            t.count += 1.0;
            t.ms += static_cast<double>(e.durationNs()) / 1e6;
        }
    }
    const double n = steps.empty() ? 1.0 : static_cast<double>(steps.size());
    for (auto& [key, t] : totals) {
        t.count /= n;
        t.ms /= n;
    }
    return totals;
}

std::set<std::int32_t> stepsOf(const TraceModel& trace, std::optional<std::int32_t> step) {
    std::set<std::int32_t> measured = trace.measuredSteps();
    if (!step) return measured;
    if (measured.count(*step) == 0) {
        throw inputError(
            fmt::format("run {} has no measured step {}; see its steps with "
                        "`glueprof report --runs {} --format md`",
                        trace.run().id, *step, trace.run().id));
    }
    return {*step};
}

int rank(NameChange change) { return static_cast<int>(change); }

}  // namespace

std::vector<const NameDiff*> TraceDiffResult::of(NameChange change, DiffSide side) const {
    std::vector<const NameDiff*> out;
    for (const NameDiff& d : names) {
        if (d.change == change && d.side == side) out.push_back(&d);
    }
    return out;
}

TraceDiffResult diffTraces(const TraceModel& reference, const TraceModel& compared,
                           std::optional<std::int32_t> step) {
    TraceDiffResult result;
    result.step = step;
    const std::set<std::int32_t> referenceSteps = stepsOf(reference, step);
    const std::set<std::int32_t> comparedSteps = stepsOf(compared, step);
    result.referenceSteps = referenceSteps.size();
    result.comparedSteps = comparedSteps.size();
    const TotalsByName a = totalsOf(reference, referenceSteps);
    const TotalsByName b = totalsOf(compared, comparedSteps);
    std::set<std::pair<std::string, DiffSide>> keys;
    for (const auto& [key, t] : a) keys.insert(key);
    for (const auto& [key, t] : b) keys.insert(key);
    for (const auto& key : keys) {
        NameDiff d;
        d.name = key.first;
        d.side = key.second;
        if (auto it = a.find(key); it != a.end()) {
            d.referenceCount = it->second.count;
            d.referenceMs = it->second.ms;
        }
        if (auto it = b.find(key); it != b.end()) {
            d.comparedCount = it->second.count;
            d.comparedMs = it->second.ms;
        }
        if (d.referenceCount == 0.0) {
            d.change = NameChange::kAdded;
        } else if (d.comparedCount == 0.0) {
            d.change = NameChange::kRemoved;
        } else if (d.comparedCount > d.referenceCount) {
            d.change = NameChange::kMore;
        } else if (d.comparedCount < d.referenceCount) {
            d.change = NameChange::kFewer;
        }
        result.names.push_back(std::move(d));
    }
    std::stable_sort(result.names.begin(), result.names.end(),
                     [](const NameDiff& x, const NameDiff& y) {
                         if (x.change != y.change) return rank(x.change) < rank(y.change);
                         return std::fabs(x.comparedMs - x.referenceMs) >
                                std::fabs(y.comparedMs - y.referenceMs);
                     });
    return result;
}

}  // namespace glueprof
