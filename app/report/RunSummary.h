#pragma once
// The summary of one run (`glueprof run`): step breakdown and sync points, as text or JSON.
#include <string>

#include "analyzers/Analysis.h"

namespace glueprof {

std::string renderRunSummary(const RunSummary& run, const AnalysisResult& analysis,
                             const std::string& db);
std::string renderRunSummaryJson(const RunSummary& run, const AnalysisResult& analysis,
                                 const std::string& db);

}  // namespace glueprof
