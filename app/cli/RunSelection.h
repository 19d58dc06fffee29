#pragma once
// Choosing runs in a database for the commands that read one: the latest run, an explicit id, the
// latest A/B pair (app/report/AbPairs.h).
#include <string>
#include <vector>

#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

// `requested`, or the newest run when it is 0; an input error when the database has none.
RunId chooseRun(const TraceReader& reader, RunId requested, const std::string& db);

}  // namespace glueprof::cli
