#pragma once
// Kineto / PyTorch-profiler Chrome trace JSON (`torch.profiler` export_chrome_trace, its
// on_trace_ready handler, `.json` or `.json.gz`), Chrome's trace event format in general (JSON
// object or array form), and glueprof's own Chrome export read back. Syntax apart from meaning:
// ChromeJsonTokenizer streams the file into raw events (never held whole), the mapper of the
// file's dialect (KinetoEventMapper, ChromeExportMapper) gives them meaning, TraceAssembly builds
// the run. The mapping follows HTA's and TraceLens's conventions (docs/import.md).
#include <string>

#include "profiler/import/TraceAssembly.h"

namespace glueprof {

// Reads one trace file into a run; an input error names the file, the byte and the problem.
ImportedRun readKinetoTrace(const std::string& path, const ImportOptions& options);

}  // namespace glueprof
