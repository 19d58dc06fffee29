#pragma once
// Choosing runs in a database for the commands that read one: the latest run, an explicit id, the
// latest A/B pair (app/report/AbPairs.h).
#include <string>
#include <vector>

#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

// `requested`, or the newest run when it is 0; an input error when the database has none.
RunId chooseRun(const TraceReader& reader, RunId requested, const std::string& db);

// `--runs` text: "A" or "A,B" (positive ids); a usage error otherwise.
std::vector<RunId> parseRunIds(const std::string& text);

}  // namespace glueprof::cli
