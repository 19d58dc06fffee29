#pragma once
// Analysis: the facade that runs every single-run analyzer over one TraceModel.
#include "analyzers/Advisor.h"
#include "analyzers/CopyOverlap.h"
#include "analyzers/GlueOverhead.h"
#include "analyzers/RepeatedWork.h"
#include "analyzers/StepBreakdown.h"
#include "analyzers/SyncPoints.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct AnalysisResult {
    StepBreakdownResult steps;
    SyncPointsResult syncPoints;
    CopyOverlapResult copyOverlap;
    GlueOverheadResult glue;
    RepeatedWorkResult repeated;
    std::vector<Finding> findings;  // the advisor's, largest saving first
};

AnalysisResult analyze(const TraceModel& trace);

}  // namespace glueprof
