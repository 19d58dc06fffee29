#pragma once
// A device stream's lane as every source names it — glueprof's live CUPTI capture and the import
// of Kineto and Nsight traces alike: `GPU d stream s`, `GPU d (no stream)` for work without one,
// and the process where one trace holds several processes' streams (their ids are per process).
#include <cstdint>
#include <string>

namespace glueprof {

std::string streamLaneName(std::int64_t device, std::int64_t stream,
                           const std::string& process = "");

}  // namespace glueprof
