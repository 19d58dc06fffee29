#pragma once
// The report's document (ReportDocument.h) as Markdown (`ab --report`, `report --format md`, the
// GUI's export): the verdict of every comparison, then each comparison and each run in detail.
// Trace text goes in code spans with backticks removed, or is escaped, so it cannot open links,
// HTML or emphasis. Figures are not drawn: their summary numbers are in the tables beside them
// (the HTML report draws the per-step bars, copies and Gantt).
#include <string>

#include "app/report/ReportDocument.h"
#include "app/report/Results.h"

namespace glueprof {

std::string writeMarkdown(const ReportDocument& document);
std::string renderResultsMarkdown(const Results& results);  // writeMarkdown of its document

}  // namespace glueprof
