#pragma once
// The two verdicts of an A/B in words, as every face prints them (docs/metrics.md): on the
// toggle's target, and end to end on step time, with the share of the step the target was in —
// why the step moves, or does not.
#include <string>

#include "analyzers/AbComparison.h"

namespace glueprof {

// "mask-build time 16.400 -> 1.000 ms per step, 16.400x [15.1, 17.9] (3 blocks): faster"
std::string targetVerdictText(const TargetComparison& target);
// "step time 1.003x [0.960, 1.090] (3 blocks): no significant change; the target was 0.6% of the
// baseline step"
std::string endToEndVerdictText(const AbComparison& comparison);

}  // namespace glueprof
