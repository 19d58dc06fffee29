#pragma once
// Repeated work: the same glue range, with the same sequence of ops inside, run more often in a
// step than there are micro-batches, across several layers — the signature of per-layer rebuilt
// metadata (the uncached packed mask) or of per-layer routing bookkeeping.
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct RepeatedRange {
    std::string name;  // the range name, e.g. build_packed_mask
    std::string ops;   // the distinct ops inside, sorted, ", "-separated (first 16): the signature
    double opsInside = 0.0;      // ops run inside one run (median)
    double runsPerStep = 0.0;    // median over measured steps
    double layersPerStep = 0.0;  // distinct layers it ran in (median)
    double microbatchesPerStep = 0.0;
    double msPerStep = 0.0;    // median total time per step
    double medianRunMs = 0.0;  // one run
    // Time beyond one run per micro-batch: msPerStep x (1 - microbatches / runs).
    double avoidableMsPerStep = 0.0;
    double syncOpsPerRun = 0.0;  // would-sync ops inside one run (median)
};

struct RepeatedWorkResult {
    std::vector<RepeatedRange>
        repeated;  // only ranges repeated beyond once per micro-batch; by avoidable time
};

RepeatedWorkResult analyzeRepeatedWork(const TraceModel& trace);

}  // namespace glueprof
