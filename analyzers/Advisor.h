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
#include "analyzers/IdleBreakdown.h"
#include "analyzers/LaunchStats.h"
#include "analyzers/PerLayerWork.h"
#include "analyzers/RepeatedWork.h"
#include "analyzers/SyncPoints.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct Finding {
    std::string rule;
    std::string toggle;    // the toggle that addresses it; "" when none exists
    std::string evidence;  // one sentence with the numbers
    double savingMsPerStep = 0.0;
    // The run is the user's program (profiled or imported), not the reference trainer: the fix is
    // a change to that program, and a toggle only names the trainer's version of it.
    bool inUserProgram = false;
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
};

// Findings sorted by estimated saving, largest first.
std::vector<Finding> advise(const AdvisorInput& input);

}  // namespace glueprof
