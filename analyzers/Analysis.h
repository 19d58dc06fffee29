#pragma once
// Analysis: the facade that runs every single-run analyzer over one TraceModel.
#include "analyzers/CopyOverlap.h"
#include "analyzers/GlueOverhead.h"
#include "analyzers/StepBreakdown.h"
#include "analyzers/SyncPoints.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct AnalysisResult {
    StepBreakdownResult steps;
    SyncPointsResult syncPoints;
    CopyOverlapResult copyOverlap;
    GlueOverheadResult glue;
};

AnalysisResult analyze(const TraceModel& trace);

}  // namespace glueprof
