#pragma once
// Analysis: the facade that runs every single-run analyzer over one TraceModel.
#include "analyzers/Advisor.h"
#include "analyzers/AnnotationBreakdown.h"
#include "analyzers/CopyOverlap.h"
#include "analyzers/DeviceTimeline.h"
#include "analyzers/GlueOverhead.h"
#include "analyzers/HostStepAttribution.h"
#include "analyzers/IdleBreakdown.h"
#include "analyzers/KernelBreakdown.h"
#include "analyzers/LaunchStats.h"
#include "analyzers/PerLayerWork.h"
#include "analyzers/PipelineBubbles.h"
#include "analyzers/QueueLength.h"
#include "analyzers/RepeatedWork.h"
#include "analyzers/StepAttribution.h"
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
    PerLayerWorkResult perLayer;        // ops every layer issues per step
    std::vector<StreamIdle> idle;       // device streams (GPU traces)
    DeviceTimelineResult timeline;      // HTA's temporal breakdown, TraceLens's GPU timeline
    StepAttributionResult attribution;  // each step's time by cause, per GPU (GPU traces)
    HostStepAttributionResult hostAttribution;  // each step's host time by cause (CPU runs)
    KernelBreakdownResult kernels;              // HTA's kernel breakdown (GPU traces)
    LaunchStatsResult launches;                 // GPU traces
    QueueLengthResult queues;                   // HTA's launch queue per stream (GPU traces)
    AnnotationBreakdownResult annotations;      // HTA's user-annotation breakdown
    BubbleResult bubbles;                       // worker lanes (pipelines)
    std::vector<Finding> findings;              // the advisor's, largest saving first
};

AnalysisResult analyze(const TraceModel& trace);

}  // namespace glueprof
