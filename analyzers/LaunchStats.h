#pragma once
// Kernel launch statistics (after HTA's CUDA kernel launch statistics): each kernel paired with its
// launch (runtime event) by correlation id; per measured step the launches, and over the run the
// launch delay (kernel start − launch end: how long the kernel waited in the queue) and the kernels
// that ran shorter than their own launch call (launch-bound work, candidates for fusion or graphs).
#include <cstdint>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct LaunchStatsResult {
    std::int64_t kernels = 0;           // kernels of measured steps
    std::int64_t pairedWithLaunch = 0;  // of which with a runtime event of the same correlation
    double launchesPerStep = 0.0;
    double medianLaunchDelayUs = 0.0;
    double maxLaunchDelayUs = 0.0;
    std::int64_t shorterThanLaunch = 0;
};

LaunchStatsResult analyzeLaunchStats(const TraceModel& trace);

}  // namespace glueprof
