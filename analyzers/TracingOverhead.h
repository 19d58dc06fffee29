#pragma once
// What a run's own tracing cost it, from the per-op cost its capture calibrated when it started
// (environment `tracing_ns_per_op`, profiler/torch_ops/TracingCost.h).
#include <optional>

#include "analyzers/StepBreakdown.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

// What the run's own tracing cost it: the per-op cost calibrated when its capture started
// (environment `tracing_ns_per_op`) times the aten ops a measured step recorded on its busiest
// host thread (threads that run side by side do not add up in wall time), against the median
// measured step.
struct TracingOverhead {
    bool recorded = false;             // the run stored a calibration (measured or not): trained
    std::optional<double> nsPerEvent;  // nullopt: not measured, or not recorded
    double eventsPerStep = 0.0;        // ops on the busiest host thread, mean over measured steps
    double stepMs = 0.0;               // median measured step
    // The fraction of step time, when known.
    std::optional<double> fraction() const {
        if (!nsPerEvent || stepMs <= 0.0) return std::nullopt;
        return *nsPerEvent * eventsPerStep / (stepMs * 1e6);
    }
};

// The calibrated cost per op (`recorded`: the run stored a calibration; `nsPerOp`: its value,
// nullopt when it was not measured) times the aten ops a measured step recorded on its busiest
// host thread, against the median measured step of `steps`.
TracingOverhead tracingOverheadOf(const TraceModel& trace, bool recorded,
                                  std::optional<double> nsPerOp, const StepBreakdownResult& steps);

}  // namespace glueprof
