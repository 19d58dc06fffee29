#pragma once
// `glueprof import` as console text (app/usecases/ImportRequest.h runs it): one line per stored
// run — where it came from, events by kind, steps, what was skipped and why — then how to see the
// ranks' group or the A/B pair it formed.
#include <string>

#include "profiler/import/ImportOutcome.h"

namespace glueprof {

// `stepPrefix`: the ranges that were read as steps (ImportRequest::stepPrefix).
std::string renderImportLine(const StoredImport& run, const std::string& stepPrefix);
// What to run next on the ranks' group or the pair; "" when the import formed neither.
std::string renderImportSummary(const ImportOutcome& outcome);

}  // namespace glueprof
