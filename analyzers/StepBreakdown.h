#pragma once
// Step breakdown: step / forward / backward / optimizer time per step.
//
// Host figures come from the phase ranges (and the steps row). On a run with device records (CUDA,
// CUPTI), each phase also gets its device figure: the time the device spent on the work the phase
// launched — per phase range, the span from the first start to the last end of the kernels, copies
// and memsets whose launch (a runtime call with the same CUPTI correlation) lies inside the range
// on its lane; the union of those spans per step. On CUDA a sync-free phase returns before its work
// is done, so its host figure is the time of queuing, and the work lands in the next phase's host
// time: the device figures are what A/B verdicts use there (value()), the host ones stay beside
// them.
#include <array>
#include <cstdint>
#include <vector>

#include "profiler/core/TimingMetric.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct StepTimes {
    std::int32_t step = 0;
    std::int32_t block = 0;
    bool warmup = false;
    double wallMs = 0.0;       // the steps row: end - start
    double forwardMs = 0.0;    // sum of `forward` ranges tagged with this step
    double backwardMs = 0.0;   // sum of `backward` ranges (includes recompute inside them)
    double optimizerMs = 0.0;  // sum of `optimizer` ranges
    double loss = 0.0;
    // Device figures by TimingMetric, where device work was found for that metric in this step.
    std::array<double, kTimingMetrics.size()> deviceMs{};
    std::array<bool, kTimingMetrics.size()> deviceFound{};
    bool hasDeviceTimes() const;  // any metric

    double hostValue(TimingMetric metric) const;  // the host field that metric names
    // The device figure when `device`, else the host one.
    double value(TimingMetric metric, bool device) const;
};

struct StepBreakdownResult {
    std::vector<StepTimes> measured;  // warm-up steps excluded
    std::vector<StepTimes> warmup;
    bool hasDeviceTimes = false;  // some measured step timed on the device (CUDA runs)
    double medianWallMs = 0.0;    // medians of the device figures where deviceTimed(), else host
    double medianForwardMs = 0.0;
    double medianBackwardMs = 0.0;
    double medianOptimizerMs = 0.0;

    double median(TimingMetric metric) const;      // the median field that metric names
    double medianHost(TimingMetric metric) const;  // median of the host figures
    // Every measured step has a device figure for `metric`: only then are device figures used, so
    // one statistic never mixes device and host samples.
    bool deviceTimed(TimingMetric metric) const;
};

StepBreakdownResult analyzeStepBreakdown(const TraceModel& trace);

}  // namespace glueprof
