#pragma once
// The results model as a Markdown report (`ab --report`, `report --format md`, the GUI's export):
// the verdict of every comparison, then each comparison and each run in detail. Trace text goes in
// code spans with backticks removed, so it cannot open links, HTML or emphasis.
#include <string>

#include "app/report/Results.h"

namespace glueprof {

std::string renderResultsMarkdown(const Results& results);

}  // namespace glueprof
