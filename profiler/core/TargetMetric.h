#pragma once
// What each toggle exists to move, measured from the trace per measured step: the time inside the
// glue it changes, beside the end-to-end step time (docs/metrics.md). The names are part of
// glueprof's output formats (tables, JSON, `check` baselines): never rename.
#include <optional>
#include <string_view>

namespace glueprof {

enum class TargetMetric {
    kNone,
    kMaskBuild,         // time inside build_packed_mask ranges
    kRouting,           // time inside moe_routing ranges
    kReloadWait,        // time the compute waited for reloads (wait_reload)
    kMakespan,          // a pipeline step's makespan over its workers
    kExposedComm,       // communication nothing else covered: the glue breakdown's comm part
    kCalibrationDelay,  // time inside calibration_delay ranges (the calibration aid)
    kUserRange,         // time inside the ranges a program's A/B names (ab --exec --target)
};

// "mask_build_ms", "moe_routing_ms", "reload_wait_ms", "makespan_ms", "exposed_comm_ms",
// "calibration_delay_ms", "target_range_ms"; "" for kNone.
const char* toString(TargetMetric metric);
// For people: "mask-build time", "routing time", "wait for reloads", "pipeline makespan", "exposed
// communication", "calibration delay", "time in the target range".
const char* describe(TargetMetric metric);
std::optional<TargetMetric> parseTargetMetric(std::string_view name);

// The target metric of an A/B of a program's versions (`ab --exec --target RANGE`): the toggles'
// own metric where RANGE is their glue range (build_packed_mask, moe_routing, calibration_delay),
// else kUserRange (the time inside ranges named RANGE); kNone for "".
TargetMetric targetMetricOfRange(std::string_view range);

}  // namespace glueprof
