#pragma once
// Chrome / Perfetto trace JSON in Kineto's conventions, which ui.perfetto.dev and chrome://tracing
// open: timestamps in µs with ns precision (3 decimals) from the run's first event
// (`baseTimeNanoseconds` holds it), pid = the host process or the GPU (kGpuPidBase + device
// index), tid = the OS thread or the stream (one tid per stream, so slices nest), categories
// `cpu_op`, `user_annotation`, `kernel`, `gpu_memcpy`, `gpu_memset`, `cuda_runtime`, `cuda_sync`,
// `wait`, and `ac2g` flow events pairing each launch (runtime event) with its kernel by correlation
// id. Every name the file uses is in profiler/core/ChromeExportFormat.h, which the importer reads
// it back by (profiler/import/ChromeExportMapper).
#include <ostream>

#include "profiler/core/TraceModel.h"

namespace glueprof {

void writeChromeTrace(const TraceModel& trace, std::ostream& out);

}  // namespace glueprof
