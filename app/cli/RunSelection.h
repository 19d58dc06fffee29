#pragma once
// The run ids a command's --runs flag names (which runs a database holds is the use cases' to say:
// app/usecases/StoredRuns.h).
#include <string>
#include <vector>

#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

// `--runs` text: "A" or "A,B" (positive ids); a usage error otherwise.
std::vector<RunId> parseRunIds(const std::string& text);

}  // namespace glueprof::cli
