#include "profiler/core/TargetMetric.h"

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
    }
    return "";
}

std::optional<TargetMetric> parseTargetMetric(std::string_view name) {
    for (TargetMetric m :
         {TargetMetric::kMaskBuild, TargetMetric::kRouting, TargetMetric::kReloadWait,
          TargetMetric::kMakespan, TargetMetric::kExposedComm, TargetMetric::kCalibrationDelay}) {
        if (name == toString(m)) return m;
    }
    return std::nullopt;
}

}  // namespace glueprof
