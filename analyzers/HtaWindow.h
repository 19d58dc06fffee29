#pragma once
// Holistic Trace Analysis's step window (hta/common/trace.py, _filter_irrelevant_gpu_kernels, with
// its last step kept): with two or more steps, HTA keeps the host events that start by the end of
// the last step and the device work they launched; with one step or none, every event. The idle
// breakdown and the launch statistics read the device work HTA reads.
#include <optional>

#include "profiler/core/TraceModel.h"

namespace glueprof {

// The latest start of a host event HTA keeps; nullopt when it keeps every event.
std::optional<TimestampNs> htaHostEventCutoff(const TraceModel& trace);

}  // namespace glueprof
