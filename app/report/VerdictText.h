#pragma once
// The two verdicts of an A/B in words, as every face prints them (docs/metrics.md): on the
// toggle's target, and end to end on step time, with the share of the step the target was in —
// why the step moves, or does not — and, for "no significant change", what the A/B could have
// seen.
#include <string>

#include "analyzers/AbComparison.h"

namespace glueprof {

// "mask-build time 16.400 -> 1.000 ms per step, 16.400x [15.1, 17.9] (3 blocks): faster"
std::string targetVerdictText(const TargetComparison& target);
// "step time 1.003x [0.960, 1.090] (3 blocks): no significant change; this A/B could have detected
// >= 6.2%; the target was 0.6% of the baseline step", or, beyond the target, "step time 1.178x
// [1.011, 1.209] (3 blocks): more than the target explains (at most 1.004x): noise or a side
// effect; the target was 0.4% of the baseline step"
std::string endToEndVerdictText(const AbComparison& comparison);
// `verdict` of `m` in words: "faster", or "no significant change; this A/B could have detected
// >= 6.2%" when it knows its minimum detectable effect.
std::string verdictText(Verdict verdict, const MetricComparison& m);
// "; this A/B could have detected >= 6.2%" for a "no significant change" that knows its minimum
// detectable effect; "" otherwise.
std::string detectableSuffix(Verdict verdict, const MetricComparison& m);
// What else the machine ran during the A/B (AbComparison::load), beside its verdicts: "steady
// (other processes took at most 0.05 cores)", or "changed: other processes took up to 1.30 cores,
// and the arms of 4 of 10 blocks saw loads that differed by up to 0.90 cores; the intervals are
// read at equal load (the blocks' own are in the JSON's speedup_ci_without_load)"; "" where it was
// not measured (imported traces, older runs).
std::string loadDriftText(const AbComparison& comparison);

// The minimum detectable effect of `m`: "6.2%", "35%", or, from a doubling on, "2.4x"; "" without
// one.
std::string detectableText(const MetricComparison& m);

}  // namespace glueprof
