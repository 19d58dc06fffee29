#include "profiler/core/TimingMetric.h"

namespace glueprof {

const char* toString(TimingMetric metric) {
    switch (metric) {
        case TimingMetric::kStep:
            return "step_ms";
        case TimingMetric::kForward:
            return "forward_ms";
        case TimingMetric::kBackward:
            return "backward_ms";
        case TimingMetric::kOptimizer:
            return "optimizer_ms";
    }
    return "unknown";
}

std::string hostFigureName(TimingMetric metric) {
    std::string name = toString(metric);
    return name.substr(0, name.size() - 3) + "_host_ms";  // "forward_ms" -> "forward_host_ms"
}

std::optional<TimingMetric> parseTimingMetric(std::string_view name) {
    for (TimingMetric metric : kTimingMetrics) {
        if (name == toString(metric)) return metric;
    }
    return std::nullopt;
}

}  // namespace glueprof
