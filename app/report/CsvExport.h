#pragma once
// CSV exports of one run: every event (one row each, the store's columns with names resolved), and
// per measured step the metrics (wall / phase times, the glue-overhead parts, every counter).
#include <ostream>

#include "analyzers/Analysis.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

void writeEventsCsv(const TraceModel& trace, std::ostream& out);
void writeStepsCsv(const TraceModel& trace, const AnalysisResult& analysis, std::ostream& out);

// RFC 4180: quoted when it holds a comma, quote or line break; quotes doubled.
std::string csvField(const std::string& text);

}  // namespace glueprof
