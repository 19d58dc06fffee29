#pragma once
// The `glueprof compare` use case: two runs of a database side by side — the results model of the
// pair (per-step medians with intervals, sync points) and what changed by name (HTA's TraceDiff).
// The CLI renders it (ResultsText.h renderCompareText, ResultsJson.h); any face may.
#include <cstdint>
#include <optional>
#include <string>

#include "analyzers/TraceDiff.h"
#include "app/report/Results.h"

namespace glueprof {

struct CompareRequest {
    std::string db = "runs.sqlite";
    RunId reference = 0;
    RunId compared = 0;
    std::optional<std::int32_t> step;  // diff this step of each run, else the measured steps' mean
};

struct CompareResults {
    Results results;  // the pair: runs[0] the reference, runs[1] the compared run
    TraceDiffResult diff;
};

// Reads both runs once; an input error when either has no measured step (or lacks `step`).
CompareResults runCompare(const CompareRequest& request);

}  // namespace glueprof
