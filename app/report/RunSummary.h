#pragma once
// The summary of one run (`glueprof run`): step breakdown and sync points, as text or JSON.
#include <cstdint>
#include <string>

#include "analyzers/Analysis.h"

namespace glueprof {

// What the process measured about itself beside the trace.
struct ProcessStats {
    std::int64_t peakRssBytes = 0;  // peak resident set of the process (0: unknown)
};

std::string renderRunSummary(const RunSummary& run, const AnalysisResult& analysis,
                             const std::string& db, const ProcessStats& process = {});
std::string renderRunSummaryJson(const RunSummary& run, const AnalysisResult& analysis,
                                 const std::string& db, const ProcessStats& process = {});

}  // namespace glueprof
