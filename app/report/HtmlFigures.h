#pragma once
// A figure of the report's document (ReportDocument.h) as inline SVG: no scripts, no network,
// every trace-derived label escaped. "" when the figure has nothing to draw (the step bars say
// "No measured steps." instead).
#include <string>

#include "app/report/ReportDocument.h"
#include "app/report/Results.h"

namespace glueprof {

std::string drawFigure(const Figure& figure);

}  // namespace glueprof
