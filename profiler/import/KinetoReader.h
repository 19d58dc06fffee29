#pragma once
// Kineto / PyTorch-profiler Chrome trace JSON (`torch.profiler` export_chrome_trace, its
// on_trace_ready handler, `.json` or `.json.gz`), and Chrome's trace event format in general
// (JSON object or array form). Read with RapidJSON's SAX reader over a zlib stream: the file is
// never held whole, events become the store's compact records as they stream by. The mapping
// follows HTA's and TraceLens's conventions (docs/import.md).
#include <string>

#include "profiler/import/TraceAssembly.h"

namespace glueprof {

// Reads one trace file into a run; an input error names the file, the byte and the problem.
ImportedRun readKinetoTrace(const std::string& path, const ImportOptions& options);

// Exactly: a decimal number of microseconds ("12.345", "1.5e3", "-2") in nanoseconds; nullopt when
// the text is no number or does not fit (exposed for tests).
std::optional<TimestampNs> microsToNanos(std::string_view text);

}  // namespace glueprof
