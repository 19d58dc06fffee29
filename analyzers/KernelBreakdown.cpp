#include "analyzers/KernelBreakdown.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>

#include "analyzers/HtaWindow.h"
#include "analyzers/Intervals.h"

namespace glueprof {

namespace {

constexpr std::size_t kShownKernels = 10;  // HTA's num_kernels
constexpr double kDurationRatio = 0.8;     // HTA's duration_ratio

// The time each combination of kernel types runs (bit t: type t's union covers it), by a sweep
// over the unions' boundaries: HTA's running status (_get_gpu_kernel_type_time).
std::map<unsigned, TimestampNs> timeByCombination(const std::vector<IntervalSet>& unions) {
    std::vector<std::pair<TimestampNs, int>> edges;  // (time, +bit / -bit)
    for (std::size_t t = 0; t < unions.size(); ++t) {
        for (const Interval& i : unions[t]) {
            edges.push_back({i.start, static_cast<int>(1u << t)});
            edges.push_back({i.end, -static_cast<int>(1u << t)});
        }
    }
    std::sort(edges.begin(), edges.end());
    std::map<unsigned, TimestampNs> time;
    int running = 0;
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
        running += edges[i].second;
        const TimestampNs length = edges[i + 1].first - edges[i].first;
        if (running > 0 && length > 0) time[static_cast<unsigned>(running)] += length;
    }
    return time;
}

}  // namespace

std::string KernelBreakdownResult::typeShareText() const {
    std::string text;
    for (const KernelTypeTime& t : byType)
        text += fmt::format("{}{} {:.1f}%", text.empty() ? "" : ", ", t.type, t.percent);
    return text;
}

KernelBreakdownResult analyzeKernelBreakdown(const TraceModel& trace) {
    // HTA's order: each type's bit, and the order its overlap labels name them in.
    constexpr std::size_t kTypes = 3;
    const std::array<HtaKernelType, kTypes> order = {
        HtaKernelType::kComputation, HtaKernelType::kCommunication, HtaKernelType::kMemory};
    const HtaDeviceWork hta(trace);
    std::array<std::vector<Interval>, kTypes> intervals;
    std::array<DurationsByName, kTypes> byName;
    std::map<StringId, HtaKernelType> typeOf;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!isDeviceWorkLane(trace.lanes()[i])) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e) || !hta.keeps(e)) continue;
            auto [it, added] = typeOf.try_emplace(e.name, HtaKernelType::kOther);
            if (added) it->second = htaKernelType(e, trace.name(e.name));
            const auto found = std::find(order.begin(), order.end(), it->second);
            if (found == order.end()) continue;
            const std::size_t t = static_cast<std::size_t>(found - order.begin());
            intervals[t].push_back({e.startNs, e.endNs});
            byName[t].add(trace.name(e.name), e.durationNs());
        }
    }
    std::vector<IntervalSet> unions;
    for (std::vector<Interval>& list : intervals) unions.push_back(unionOf(std::move(list)));
    KernelBreakdownResult result;
    TimestampNs all = 0;
    for (const auto& [combination, ns] : timeByCombination(unions)) {
        std::string label;
        for (std::size_t t = 0; t < kTypes; ++t) {
            if ((combination & (1u << t)) == 0) continue;
            label += (label.empty() ? "" : " overlapping ") + std::string(toString(order[t]));
        }
        result.byType.push_back(KernelTypeTime{label, ns, 0.0});
        all += ns;
    }
    for (KernelTypeTime& t : result.byType)
        t.percent = 100.0 * static_cast<double>(t.ns) / static_cast<double>(all);
    std::sort(result.byType.begin(), result.byType.end(),
              [](const KernelTypeTime& a, const KernelTypeTime& b) { return a.ns > b.ns; });
    for (std::size_t t = 0; t < kTypes; ++t) {
        for (NamedDurations& d : byName[t].folded(kShownKernels, kDurationRatio)) {
            KernelTime k;
            static_cast<NamedDurations&>(k) = std::move(d);
            k.type = toString(order[t]);
            result.kernels.push_back(std::move(k));
        }
    }
    return result;
}

}  // namespace glueprof
