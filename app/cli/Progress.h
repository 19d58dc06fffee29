#pragma once
// Progress on stderr while the trainer runs: one updating line on a terminal, nothing otherwise.
#include <chrono>
#include <string>

#include "app/cli/ErrorLine.h"
#include "reference_trainer/AbRunner.h"

namespace glueprof::cli {

ProgressCallback terminalProgress(const std::string& what);
// One toggle of a suite of `count`, started at `suiteStart`: the line adds an ETA for the whole
// suite, from this toggle's pace and the average toggle so far.
ProgressCallback terminalProgress(const std::string& what, int index, int count,
                                  std::chrono::steady_clock::time_point suiteStart);
// A line the recording tells the user (CaptureSession's notices), on stderr.
void printNotice(const std::string& line);

}  // namespace glueprof::cli
