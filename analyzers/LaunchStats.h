#pragma once
// Kernel launch statistics (after HTA's CUDA kernel launch statistics): each kernel paired with its
// launch (runtime event) by correlation id; per measured step the launches, and over the run the
// launch delay (kernel start − launch end: how long the kernel waited in the queue) and the kernels
// that ran shorter than their own launch call (launch-bound work, candidates for fusion or graphs).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

// HTA's get_cuda_kernel_launch_stats (hta/analyzers/cuda_kernel_analysis.py), summarized: each
// launch call (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync) joined with
// the device work of its correlation id, over the device work HTA reads (analyzers/HtaWindow.h):
// cpu duration = the call's, gpu duration = the device work's, launch delay = device start − call
// start − call duration, clipped at 0. The outliers are HTA's: calls longer than its
// runtime_cutoff (50 µs) and launch delays over its launch_delay_cutoff (100 µs).
constexpr TimestampNs kLaunchCallOutlierNs = 50'000;
constexpr TimestampNs kLaunchDelayOutlierNs = 100'000;
constexpr std::size_t kListedLaunchOutliers = 5;

struct LaunchPair {  // one (call, device work) pair
    std::string call;
    std::string work;
    std::int64_t correlation = 0;
    std::int32_t step = 0;  // the call's step (kNoTag outside steps)
    TimestampNs callStartNs = 0;
    TimestampNs cpuDurationNs = 0;
    TimestampNs gpuDurationNs = 0;
    TimestampNs launchDelayNs = 0;
};

struct Percentiles {  // linear, in microseconds
    double p50 = 0.0;
    double p90 = 0.0;
    double p99 = 0.0;
    double max = 0.0;
};

struct PerLaunchStats {
    std::int64_t paired = 0;  // (call, device work) pairs
    TimestampNs cpuDurationNs = 0;
    TimestampNs gpuDurationNs = 0;
    std::int64_t gpuShorterThanCpu = 0;  // device work shorter than its own call: launch-bound
    Percentiles cpuDuration;             // the distributions, over the pairs (0 with none)
    Percentiles gpuDuration;
    Percentiles launchDelay;
    std::int64_t longCalls = 0;            // cpu duration > kLaunchCallOutlierNs
    std::int64_t longDelays = 0;           // launch delay > kLaunchDelayOutlierNs
    std::vector<LaunchPair> longestCalls;  // the largest few of each, largest first
    std::vector<LaunchPair> longestDelays;

    // The three distributions by their names in the reports: "launch call (CPU)", "device work
    // (GPU)", "launch delay".
    std::array<std::pair<const char*, const Percentiles*>, 3> distributions() const {
        return {{{"launch call (CPU)", &cpuDuration},
                 {"device work (GPU)", &gpuDuration},
                 {"launch delay", &launchDelay}}};
    }
};

struct LaunchStatsResult {
    std::int64_t kernels = 0;           // kernels of measured steps
    std::int64_t pairedWithLaunch = 0;  // of which with a runtime event of the same correlation
    double launchesPerStep = 0.0;
    double medianLaunchDelayUs = 0.0;
    double maxLaunchDelayUs = 0.0;
    std::int64_t shorterThanLaunch = 0;
    PerLaunchStats perLaunch;  // HTA's, over the whole run
};

LaunchStatsResult analyzeLaunchStats(const TraceModel& trace);

}  // namespace glueprof
