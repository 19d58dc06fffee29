#pragma once
// The report's document (ReportDocument.h) as one self-contained HTML file (`report`, the GUI's
// export): figures as inline SVG (HtmlFigures.h), no scripts, no network; every trace-derived
// string escaped.
#include <string>

#include "app/report/ReportDocument.h"
#include "app/report/Results.h"

namespace glueprof {

std::string writeHtml(const ReportDocument& document);
std::string renderResultsHtml(const Results& results);  // writeHtml of its document

}  // namespace glueprof
