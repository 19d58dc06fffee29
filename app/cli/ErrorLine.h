#pragma once
// How the CLI's error lines start, and the end of a progress line before one: what both
// executables (glueprof and glueprof-torch) print their errors with.
#include <string>

namespace glueprof::cli {

// "glueprof: ", or "glueprof (rank R of N): " in a rank of a multi-process run.
std::string messagePrefix();

// Clears the progress line on a terminal, so the message after it starts its own line.
void endProgressLine();

}  // namespace glueprof::cli
