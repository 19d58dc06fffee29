#pragma once
// The results model as one self-contained HTML file (`report`, the GUI's export): inline SVG, no
// scripts, no network; every trace-derived string escaped.
#include <string>

#include "app/report/Results.h"

namespace glueprof {

std::string renderResultsHtml(const Results& results);

}  // namespace glueprof
