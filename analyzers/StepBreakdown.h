#pragma once
// Step breakdown: forward / backward / optimizer wall time per step, from the phase ranges.
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

    double value(TimingMetric metric) const;  // the field that metric names
};

struct StepBreakdownResult {
    std::vector<StepTimes> measured;  // warm-up steps excluded
    std::vector<StepTimes> warmup;
    double medianWallMs = 0.0;
    double medianForwardMs = 0.0;
    double medianBackwardMs = 0.0;
    double medianOptimizerMs = 0.0;

    double median(TimingMetric metric) const;  // the median field that metric names
};

StepBreakdownResult analyzeStepBreakdown(const TraceModel& trace);

}  // namespace glueprof
