#pragma once
// Kineto / PyTorch-profiler Chrome trace JSON (`torch.profiler` export_chrome_trace, its
// on_trace_ready handler, `.json` or `.json.gz`), and Chrome's trace event format in general
// (JSON object or array form). Read with RapidJSON's SAX reader over a zlib stream: the file is
// never held whole, events become the store's compact records as they stream by. The mapping
// follows HTA's and TraceLens's conventions (docs/import.md).
#include <cstddef>
#include <string>

#include "profiler/import/TraceAssembly.h"

namespace glueprof {

// The longest name or other field glueprof reads from an event (name, cat, ph, pid, tid, ts, dur,
// id, the args it maps, a device's fields): a trace with a longer one is refused (docs/import.md
// §8). The longest demangled kernel names are a few KiB; the bound keeps one hostile name (1 GiB
// from a 1 MB gzip) from being held and copied whole.
constexpr std::size_t kMaxTraceNameBytes = std::size_t{64} << 10;
// The longest JSON string, key or number read at all, fields glueprof ignores included: RapidJSON
// holds each one whole before the handler sees it.
constexpr std::size_t kMaxJsonTokenBytes = std::size_t{64} << 20;

// Reads one trace file into a run; an input error names the file, the byte and the problem.
ImportedRun readKinetoTrace(const std::string& path, const ImportOptions& options);

// Exactly: a decimal number of microseconds ("12.345", "1.5e3", "-2") in nanoseconds; nullopt when
// the text is no number or does not fit (exposed for tests).
std::optional<TimestampNs> microsToNanos(std::string_view text);

}  // namespace glueprof
