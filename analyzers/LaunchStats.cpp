#include "analyzers/LaunchStats.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "analyzers/Statistics.h"

namespace glueprof {

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
    return r;
}

}  // namespace glueprof
