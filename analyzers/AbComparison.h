#pragma once
// A/B comparison of a baseline and an optimized run recorded in interleaved blocks on the same
// batches: per timing metric the medians, the speedup (baseline / optimized) and a bootstrap 95%
// interval; per counter the per-step values, compared exactly; and whether the losses match bit
// for bit.
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/StepBreakdown.h"
#include "profiler/core/TimingMetric.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct MetricComparison {
    TimingMetric metric = TimingMetric::kStep;
    double baseline = 0.0;  // median over measured steps
    double optimized = 0.0;
    double speedup = 0.0;     // baseline / optimized
    double speedupLow = 0.0;  // bootstrap 95% interval of the speedup
    double speedupHigh = 0.0;
    std::size_t baselineSamples = 0;
    std::size_t optimizedSamples = 0;
    bool deviceTimed = false;  // device figures of both arms (CUDA), else host figures

    const char* name() const { return toString(metric); }  // step_ms, forward_ms, ...
};

struct CounterComparison {
    std::string name;       // e.g. mask_builds_per_step
    double baseline = 0.0;  // median per measured step
    double optimized = 0.0;
    bool baselineConstant = true;  // the same value in every measured step
    bool optimizedConstant = true;
};

enum class Verdict { kFaster, kSlower, kNoSignificantChange };
const char* toString(Verdict verdict);

struct AbComparison {
    std::string toggle;
    TimingMetric primaryMetric = TimingMetric::kStep;  // the metric the verdict is about
    RunId baselineRun = 0;
    RunId optimizedRun = 0;
    std::vector<MetricComparison> metrics;
    std::vector<CounterComparison> counters;
    bool lossEqual = false;  // every step's loss identical bit for bit
    // False when either run has no losses to compare (an imported trace): lossEqual is false then.
    bool lossRecorded = true;
    double baselineFinalLoss = 0.0;
    double optimizedFinalLoss = 0.0;

    const MetricComparison* metric(TimingMetric which) const;
    const MetricComparison* metric(std::string_view name) const;  // by its toString name
    // kFaster when the whole 95% interval of the primary metric's speedup is above 1, kSlower when
    // it is below 1, otherwise no significant change.
    Verdict verdict() const;
    const CounterComparison* counter(const std::string& name) const;
};

AbComparison compareRuns(const std::string& toggle, TimingMetric primaryMetric,
                         const TraceModel& baseline, const TraceModel& optimized);
// The same with the runs' step breakdowns already computed (the results model has them).
AbComparison compareRuns(const std::string& toggle, TimingMetric primaryMetric,
                         const TraceModel& baseline, const StepBreakdownResult& baselineSteps,
                         const TraceModel& optimized, const StepBreakdownResult& optimizedSteps);

}  // namespace glueprof
