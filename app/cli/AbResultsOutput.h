#pragma once
// How both forms of `ab` (the trainer's toggles and --exec) end: the report file, then the
// verdicts on stdout; when the report cannot be written the A/B is stored all the same, so its
// verdicts are still shown before the refusal.
#include <string>

#include "app/report/Results.h"

namespace glueprof::cli {

// Writes the Markdown report to `reportPath` and prints the comparison table (JSON with `json`).
// Throws the report's GlueprofError after printing the verdicts.
void writeReportAndShowVerdicts(Results& results, const std::string& reportPath, bool json);

}  // namespace glueprof::cli
