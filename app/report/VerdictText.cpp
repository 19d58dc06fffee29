#include "app/report/VerdictText.h"

#include <fmt/format.h>

namespace glueprof {

std::string targetVerdictText(const TargetComparison& target) {
    return fmt::format("{} {:.3f} -> {:.3f} ms per step, {}: {}", describe(target.metric),
                       target.stats.baseline, target.stats.optimized, speedupText(target.stats),
                       toString(target.verdict()));
}

std::string endToEndVerdictText(const AbComparison& c) {
    const MetricComparison* step = c.metric(TimingMetric::kStep);
    if (step == nullptr) return "no step time";
    std::string text =
        fmt::format("step time {}{}: {}", speedupText(*step),
                    step->deviceTimed ? " on the device" : "", toString(c.endToEndVerdict()));
    if (c.target) {
        text += fmt::format("; the target was {:.1f}% of the baseline step",
                            100.0 * c.target->baselineShare());
    }
    return text;
}

}  // namespace glueprof
