#pragma once
// What `glueprof compare` finds (app/usecases/CompareRequest.h runs it): two runs of a database
// side by side — the results model of the pair (per-step medians with intervals, sync points) and
// what changed by name (HTA's TraceDiff). The CLI renders it (ResultsText.h renderCompareText,
// ResultsJson.h); any face may.
#include "analyzers/TraceDiff.h"
#include "app/report/Results.h"

namespace glueprof {

struct CompareResults {
    Results results;  // the pair: runs[0] the reference, runs[1] the compared run
    TraceDiffResult diff;
};

}  // namespace glueprof
