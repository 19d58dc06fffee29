#pragma once
// The advisor: rules over one trace that recognise a pattern of lost time, name the fix (and the
// toggle of the reference trainer that makes it, where one does) and estimate, from the trace, the
// time it could save per step, never more than the idle or blocked time the fix removes. The rules
// are one table (AdvisorRules.h: id, toggle, thresholds, function), run in its order; what each
// looks for is in docs/metrics.md ("Advisor") and `glueprof advise --rules`.
#include <string>
#include <vector>

#include "analyzers/CopyOverlap.h"
#include "analyzers/DeviceTimeline.h"
#include "analyzers/GlueOverhead.h"
#include "analyzers/HostStepAttribution.h"
#include "analyzers/IdleBreakdown.h"
#include "analyzers/LaunchStats.h"
#include "analyzers/PerLayerWork.h"
#include "analyzers/RepeatedWork.h"
#include "analyzers/StepAttribution.h"
#include "analyzers/SyncPoints.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

// A figure a finding measured, by name, with its unit ("ms/step", "%", "count/step", ...).
struct FindingMetric {
    std::string name;
    double value = 0.0;
    std::string unit;
};

// A name in the trace a finding points at: an op, a range, a runtime call, a stream, a kernel. A
// role may hold several (the ops that issue a pattern); `detail` says what each contributes.
struct FindingRef {
    std::string role;
    std::string name;
    std::string detail;  // "(3 per step, device to host)", "x2"; "" when none
};

// What a rule found, as data: what it measured and where, the time it could save and the fix. The
// sentence (`evidence`) is rendered from the metrics and references by the rule's wording
// (AdvisorRules.h), so every face can show the figures themselves.
struct Finding {
    std::string rule;
    std::string toggle;  // the toggle that addresses it; "" when none exists
    double savingMsPerStep = 0.0;
    std::vector<FindingMetric> metrics;
    std::vector<FindingRef> refs;
    std::string fix;       // what to change, one sentence
    std::string evidence;  // what was measured, one sentence (rendered)
    // The step-time causes its fix removes (its rule's, AdvisorRules.h); on a GPU trace its saving
    // is at most what the attribution gave them and no other finding claimed first.
    std::vector<StepCause> claims;
    // The run is the user's program (profiled or imported), not the reference trainer: the fix is
    // a change to that program, and a toggle only names the trainer's version of it.
    bool inUserProgram = false;

    Finding& measured(std::string name, double value, std::string unit);
    Finding& pointsAt(std::string role, std::string name, std::string detail = "");
    const FindingMetric* metric(const std::string& name) const;  // null when not measured
};

struct AdvisorInput {
    const TraceModel* trace = nullptr;
    const RepeatedWorkResult* repeated = nullptr;
    const CopyOverlapResult* copies = nullptr;
    const SyncPointsResult* syncs = nullptr;   // optional: the repeated_host_syncs rule reads it
    const GlueOverheadResult* glue = nullptr;  // optional: the blocking_all_reduces rule reads it
    const PerLayerWorkResult* perLayer = nullptr;  // optional: the per_layer_glue rule reads it
    // Optional, GPU traces: the device rules (analyzers/DeviceAdvisorRules) read them.
    const std::vector<StreamIdle>* idle = nullptr;
    const LaunchStatsResult* launches = nullptr;
    const DeviceTimelineResult* timeline = nullptr;
    // Optional, GPU traces: each step's time by cause, which bounds the savings.
    const StepAttributionResult* attribution = nullptr;
    // Optional, CPU runs: each step's host time by cause.
    const HostStepAttributionResult* hostAttribution = nullptr;
};

// Findings sorted by estimated saving, largest first.
std::vector<Finding> advise(const AdvisorInput& input);

// Bounds each finding's saving by the time attributed to the causes it claims, each nanosecond
// claimed once: findings in order of their saving, largest first, each takes from its causes'
// remaining budget (ms per step) at most its saving, and its saving becomes what it took. A
// finding that claims no cause keeps its saving. Sorts the findings by saving, largest first.
void claimAttributedTime(std::vector<Finding>& findings,
                         std::array<double, kStepCauseCount> budgetMs);

}  // namespace glueprof
