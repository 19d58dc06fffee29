#pragma once
// A data-parallel run's ranks in words, as every face prints them (docs/metrics.md, "Ranks"): how a
// rank's clock was put on rank 0's, and its comm/compute overlap.
#include <string>

#include "app/report/Results.h"

namespace glueprof {

// "one clock (same machine); barrier estimate +3.2 us, within 41.0 us", "shifted -120.4 us,
// residual 8.1 us", or "not measured".
std::string clockAlignmentText(const RunAnalysis& rank);
// "0.41", or "no comm" for a rank without communication (ratio < 0).
std::string overlapRatioText(double ratio);

}  // namespace glueprof
