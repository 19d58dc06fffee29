#include "analyzers/LaunchStats.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzers/HtaWindow.h"
#include "analyzers/Statistics.h"
#include "profiler/core/RuntimeCallNames.h"

namespace glueprof {

namespace {

// The launch calls HTA pairs with device work; CUPTI's names carry a version suffix (_v7000).
bool isHtaLaunchCall(const std::string& name) {
    return isAnyRuntimeCall(
        name, {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
               "runFunction - job_prep_and_submit_for_execution"});
}

// `launches`: every runtime call by correlation id (analyzeLaunchStats's map).
PerLaunchStats perLaunchStats(const TraceModel& trace,
                              const std::unordered_map<std::int64_t, const Event*>& launches) {
    const std::optional<TimestampNs> cutoff = htaHostEventCutoff(trace);
    std::unordered_map<StringId, bool> launchNames;
    const auto htaCall = [&](std::int64_t correlation) -> const Event* {
        const auto found = launches.find(correlation);
        if (found == launches.end()) return nullptr;
        const Event& call = *found->second;
        if (cutoff && call.startNs > *cutoff) return nullptr;
        auto [name, added] = launchNames.try_emplace(call.name, false);
        if (added) name->second = isHtaLaunchCall(trace.name(call.name));
        return name->second ? &call : nullptr;
    };
    PerLaunchStats s;
    std::vector<double> delays;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e) || e.correlation == 0) continue;
            const Event* call = htaCall(e.correlation);
            if (call == nullptr) continue;
            const Event& c = *call;
            ++s.paired;
            s.cpuDurationNs += c.durationNs();
            s.gpuDurationNs += e.durationNs();
            const TimestampNs delay =
                std::max<TimestampNs>(e.startNs - c.startNs - c.durationNs(), 0);
            delays.push_back(static_cast<double>(delay) / 1e3);
            if (e.durationNs() < c.durationNs()) ++s.gpuShorterThanCpu;
        }
    }
    if (!delays.empty()) {
        s.launchDelayMedianUs = median(delays);
        s.launchDelayMaxUs = *std::max_element(delays.begin(), delays.end());
    }
    return s;
}

}  // namespace

LaunchStatsResult analyzeLaunchStats(const TraceModel& trace) {
    const std::set<std::int32_t> measured = trace.measuredSteps();
    std::unordered_map<std::int64_t, const Event*> launches;
    launches.reserve(trace.eventCount() / 4);
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind == EventKind::kRuntime && e.correlation != 0) launches[e.correlation] = &e;
        }
    }
    LaunchStatsResult r;
    std::vector<double> delays;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind != EventKind::kKernel) continue;
            auto launch = launches.find(e.correlation);
            const std::int32_t step =
                launch != launches.end() && e.step == kNoTag ? launch->second->step : e.step;
            if (measured.count(step) == 0) continue;
            ++r.kernels;
            if (launch == launches.end()) continue;
            ++r.pairedWithLaunch;
            delays.push_back(static_cast<double>(e.startNs - launch->second->endNs) / 1e3);
            if (e.durationNs() < launch->second->durationNs()) ++r.shorterThanLaunch;
        }
    }
    r.launchesPerStep = measured.empty()
                            ? 0.0
                            : static_cast<double>(r.kernels) / static_cast<double>(measured.size());
    r.medianLaunchDelayUs = median(delays);
    r.maxLaunchDelayUs = delays.empty() ? 0.0 : *std::max_element(delays.begin(), delays.end());
    r.perLaunch = perLaunchStats(trace, launches);
    return r;
}

}  // namespace glueprof
