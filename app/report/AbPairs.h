#pragma once
// A/B runs in a database, by their labels: `glueprof ab` (and the GUI) label the arms of a toggle's
// comparison TOGGLE:baseline and TOGGLE:optimized. Shared by check, report and the GUI.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct AbPair {
    RunSummary baseline;
    RunSummary optimized;
};

// The latest complete A/B of each toggle: its newest optimized run and the newest baseline before
// it.
std::map<std::string, AbPair> latestAbPairs(const std::vector<RunSummary>& runs);
// The newest of them (by optimized run id), if any.
std::optional<AbPair> newestAbPair(const std::vector<RunSummary>& runs);
// The toggle an arm's label names ("packed_cache:optimized" -> "packed_cache").
std::string toggleFromLabel(const std::string& label);

}  // namespace glueprof
