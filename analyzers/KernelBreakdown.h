#pragma once
// HTA's GPU kernel breakdown (hta/analyzers/breakdown_analysis.py, get_gpu_kernel_breakdown, with
// the defaults of its TraceAnalysis: duration_ratio 0.8, num_kernels 10, memory kernels
// included), over HTA's selection of device work and with HTA's kernel types
// (analyzers/HtaWindow.h):
//   by type   the time each combination of computation, communication and memory kernels runs
//             ("COMPUTATION", "COMPUTATION overlapping MEMORY", ...: the types' unions, named in
//             that order), with its share of their sum;
//   kernels   per type, each kernel name's summed duration, count, mean, min and max, largest
//             first. Past 10 names, HTA folds into "others" every name past the 10th and every name
//             whose running sum exceeds the 0.8 quantile (linear) of the running sums; "others"
//             keeps the folded names' summed duration (its count, the folded kernels').
// CPU runs have no device work: empty.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/DurationsByName.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct KernelTypeTime {
    std::string type;  // "COMPUTATION", "COMMUNICATION", "COMPUTATION overlapping COMMUNICATION"
    TimestampNs ns = 0;
    double percent = 0.0;  // of the types' sum
};

struct KernelTime : NamedDurations {
    std::string type;  // "COMPUTATION", "COMMUNICATION" or "MEMORY"
};

struct KernelBreakdownResult {
    std::vector<KernelTypeTime> byType;  // largest first
    // "COMPUTATION 81.2%, MEMORY 18.8%": the types' shares, largest first.
    std::string typeShareText() const;
    std::vector<KernelTime>
        kernels;  // per type (computation, communication, memory), largest first
};

KernelBreakdownResult analyzeKernelBreakdown(const TraceModel& trace);

}  // namespace glueprof
