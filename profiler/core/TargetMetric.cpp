#include "profiler/core/TargetMetric.h"

#include "profiler/core/TraceNames.h"

namespace glueprof {

const char* toString(TargetMetric metric) {
    switch (metric) {
        case TargetMetric::kNone:
            return "";
        case TargetMetric::kMaskBuild:
            return "mask_build_ms";
        case TargetMetric::kRouting:
            return "moe_routing_ms";
        case TargetMetric::kReloadWait:
            return "reload_wait_ms";
        case TargetMetric::kMakespan:
            return "makespan_ms";
        case TargetMetric::kExposedComm:
            return "exposed_comm_ms";
        case TargetMetric::kCalibrationDelay:
            return "calibration_delay_ms";
        case TargetMetric::kUserRange:
            return "target_range_ms";
    }
    return "";
}

const char* describe(TargetMetric metric) {
    switch (metric) {
        case TargetMetric::kNone:
            return "";
        case TargetMetric::kMaskBuild:
            return "mask-build time";
        case TargetMetric::kRouting:
            return "routing time";
        case TargetMetric::kReloadWait:
            return "wait for reloads";
        case TargetMetric::kMakespan:
            return "pipeline makespan";
        case TargetMetric::kExposedComm:
            return "exposed communication";
        case TargetMetric::kCalibrationDelay:
            return "calibration delay";
        case TargetMetric::kUserRange:
            return "time in the target range";
    }
    return "";
}

std::optional<TargetMetric> parseTargetMetric(std::string_view name) {
    for (TargetMetric m :
         {TargetMetric::kMaskBuild, TargetMetric::kRouting, TargetMetric::kReloadWait,
          TargetMetric::kMakespan, TargetMetric::kExposedComm, TargetMetric::kCalibrationDelay,
          TargetMetric::kUserRange}) {
        if (name == toString(m)) return m;
    }
    return std::nullopt;
}

TargetMetric targetMetricOfRange(std::string_view range) {
    if (range.empty()) return TargetMetric::kNone;
    if (range == names::kMaskBuild) return TargetMetric::kMaskBuild;
    if (range == names::kMoeRouting) return TargetMetric::kRouting;
    if (range == names::kCalibrationDelay) return TargetMetric::kCalibrationDelay;
    return TargetMetric::kUserRange;
}

}  // namespace glueprof
