#pragma once
// Progress on stderr while the trainer runs: one updating line on a terminal, nothing otherwise.
#include <string>

#include "reference_trainer/AbRunner.h"

namespace glueprof::cli {

ProgressCallback terminalProgress(const std::string& what);
void endProgressLine();
// A line the recording tells the user (CaptureSession's notices), on stderr.
void printNotice(const std::string& line);

}  // namespace glueprof::cli
