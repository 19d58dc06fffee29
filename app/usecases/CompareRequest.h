#pragma once
// The `glueprof compare` use case: two runs of a database side by side (CompareResults.h).
// Torch-free.
#include <cstdint>
#include <optional>
#include <string>

#include "app/report/CompareResults.h"

namespace glueprof {

struct CompareRequest {
    std::string db = "runs.sqlite";
    RunId reference = 0;
    RunId compared = 0;
    std::optional<std::int32_t> step;  // diff this step of each run, else the measured steps' mean
};

// Reads both runs once; an input error when either has no measured step (or lacks `step`).
CompareResults runCompare(const CompareRequest& request);

}  // namespace glueprof
