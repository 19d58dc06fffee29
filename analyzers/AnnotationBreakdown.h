#pragma once
// Time per user annotation, as Holistic Trace Analysis's get_gpu_user_annotation_breakdown gives it
// (hta/analyzers/breakdown_analysis.py, its defaults: duration_ratio 0.8, num_kernels 1000): each
// annotation name's count and summed, mean, min, max and standard deviation of duration, largest
// first, folded into "others" as HTA folds (analyzers/DurationsByName.h).
//   gpu  the annotations on device streams (Kineto's gpu_user_annotation: the time a
//        record_function's kernels span on the GPU), HTA's use_gpu_annotation=True;
//   cpu  the ranges on host threads (Kineto's user_annotation: record_function, ProfilerStep#N;
//        glueprof's own ranges on its runs; not Python frames nor collectives' comm ranges),
//        HTA's use_gpu_annotation=False, over the host events
//        HTA reads (analyzers/HtaWindow.h: with two or more steps, those starting by the last
//        step's end).
#include <cstddef>
#include <vector>

#include "analyzers/DurationsByName.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

constexpr std::size_t kShownAnnotations = 1000;  // HTA's num_kernels for this breakdown
constexpr double kAnnotationDurationRatio = 0.8;

struct AnnotationBreakdownResult {
    std::vector<NamedDurations> gpu;
    std::vector<NamedDurations> cpu;
};

AnnotationBreakdownResult analyzeAnnotationBreakdown(const TraceModel& trace);

}  // namespace glueprof
