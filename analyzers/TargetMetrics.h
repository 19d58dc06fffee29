#pragma once
// A toggle's target metric per measured step (profiler/core/TargetMetric.h): the time inside the
// glue it changes, measured from the trace.
//   mask_build_ms   sum of build_packed_mask ranges tagged with the step
//   moe_routing_ms  sum of moe_routing ranges
//   reload_wait_ms  sum of wait_reload waits (the compute waiting for an offloaded input)
//   makespan_ms     first start to last end of the step's forward/recompute/backward work on the
//                   pipeline workers (the bubble analyzer's makespan)
//   target_range_ms sum of the ranges named `range` (ab --exec --target RANGE)
// Every measured step has a value (0 when the step has none of it).
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/core/TargetMetric.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct TargetSample {
    std::int32_t step = 0;
    std::int32_t block = 0;
    double ms = 0.0;
};

std::vector<TargetSample> targetPerStep(const TraceModel& trace, TargetMetric metric,
                                        const std::string& range = "");

}  // namespace glueprof
