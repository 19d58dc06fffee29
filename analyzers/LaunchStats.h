#pragma once
// Kernel launch statistics (after HTA's CUDA kernel launch statistics): each kernel paired with its
// launch (runtime event) by correlation id; per measured step the launches, and over the run the
// launch delay (kernel start − launch end: how long the kernel waited in the queue) and the kernels
// that ran shorter than their own launch call (launch-bound work, candidates for fusion or graphs).
#include <cstdint>

#include "profiler/core/TraceModel.h"

namespace glueprof {

// HTA's get_cuda_kernel_launch_stats (hta/analyzers/cuda_kernel_analysis.py), summarized: each
// launch call (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync) joined with
// the device work of its correlation id, over the device work HTA reads (analyzers/HtaWindow.h):
// cpu duration = the call's, gpu duration = the device work's, launch delay = device start − call
// start − call duration, clipped at 0.
struct PerLaunchStats {
    std::int64_t paired = 0;  // (call, device work) pairs
    TimestampNs cpuDurationNs = 0;
    TimestampNs gpuDurationNs = 0;
    double launchDelayMedianUs = 0.0;  // 0 when nothing is paired
    double launchDelayMaxUs = 0.0;
    std::int64_t gpuShorterThanCpu = 0;  // device work shorter than its own call: launch-bound
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
