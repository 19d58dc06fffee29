#pragma once
// The summary of one run (`glueprof run`): step breakdown and sync points, as text or JSON.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/Analysis.h"

namespace glueprof {

// What the process measured about itself beside the trace.
struct ProcessStats {
    std::int64_t peakRssBytes = 0;  // peak resident set of the process (0: unknown)
};

// `diagnostics`: what the capture lost or skipped (TraceModel::diagnostics), listed after the
// summary.
std::string renderRunSummary(const RunSummary& run, const AnalysisResult& analysis,
                             const std::string& db, const ProcessStats& process = {},
                             const std::vector<Diagnostic>& diagnostics = {});
std::string renderRunSummaryJson(const RunSummary& run, const AnalysisResult& analysis,
                                 const std::string& db, const ProcessStats& process = {},
                                 const std::vector<Diagnostic>& diagnostics = {});

}  // namespace glueprof
