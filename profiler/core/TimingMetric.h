#pragma once
// The timing metrics an A/B compares per measured step, and their names in every output (tables,
// JSON, CSV, `check` baselines). The names are part of glueprof's output formats: never rename;
// their definitions are in docs/metrics.md.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace glueprof {

enum class TimingMetric { kStep, kForward, kBackward, kOptimizer };

constexpr std::array<TimingMetric, 4> kTimingMetrics = {
    TimingMetric::kStep, TimingMetric::kForward, TimingMetric::kBackward, TimingMetric::kOptimizer};

// "step_ms", "forward_ms", "backward_ms", "optimizer_ms".
const char* toString(TimingMetric metric);
// The host figure's name beside a device-timed one: "step_host_ms", "forward_host_ms", ...
std::string hostFigureName(TimingMetric metric);
// The metric a name written by toString names; nullopt for any other text.
std::optional<TimingMetric> parseTimingMetric(std::string_view name);

}  // namespace glueprof
