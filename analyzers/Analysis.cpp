#include "analyzers/Analysis.h"

#include "profiler/core/RunMetadata.h"

namespace glueprof {

AnalysisResult analyze(const TraceModel& trace) {
    AnalysisResult result;
    result.steps = analyzeStepBreakdown(trace);
    result.syncPoints = analyzeSyncPoints(trace);
    result.copyOverlap = analyzeCopyOverlap(trace);
    result.glue = analyzeGlueOverhead(trace);
    result.repeated = analyzeRepeatedWork(trace);
    result.perLayer = analyzePerLayerWork(trace);
    result.idle = analyzeIdleBreakdown(trace);
    result.timeline = analyzeDeviceTimeline(trace);
    result.attribution = attributeSteps(trace);
    result.hostAttribution =
        attributeHostSteps(trace, runEnvironmentOf(trace.run()).tracingNsPerOp);
    result.kernels = analyzeKernelBreakdown(trace);
    result.launches = analyzeLaunchStats(trace);
    result.queues = analyzeQueueLength(trace);
    result.annotations = analyzeAnnotationBreakdown(trace);
    result.bubbles = analyzeBubbles(trace);
    result.findings =
        advise(AdvisorInput{&trace, &result.repeated, &result.copyOverlap, &result.syncPoints,
                            &result.glue, &result.perLayer, &result.idle, &result.launches,
                            &result.timeline, &result.attribution, &result.hostAttribution});
    return result;
}

}  // namespace glueprof
