#pragma once
// Choosing runs in a database for the commands that read one: the latest run, an explicit id, the
// latest A/B of each toggle (runs labelled TOGGLE:baseline / TOGGLE:optimized by `glueprof ab`).
#include <map>
#include <string>
#include <vector>

#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

// `requested`, or the newest run when it is 0; an input error when the database has none.
RunId chooseRun(const TraceReader& reader, RunId requested, const std::string& db);

struct AbPair {
    RunSummary baseline;
    RunSummary optimized;
};
// The latest complete A/B of each toggle: its newest optimized run and the newest baseline before it.
std::map<std::string, AbPair> latestAbPairs(const std::vector<RunSummary>& runs);

}  // namespace glueprof::cli
