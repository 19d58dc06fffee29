#pragma once
// What the tracer adds per recorded op on this machine, measured when a capture starts, so every
// run can say what its own tracing cost it: the same small ops (at::add of 1-element tensors) with
// no observer and with an OpObserver recording into a scratch database, interleaved in rounds; the
// median difference per op, in nanoseconds. It covers the trainer thread's side (libtorch's
// RecordFunction, the observer, the hand-off to the writer), not the writer thread's SQLite time,
// which runs beside it at a lower priority.
#include <optional>

namespace glueprof {

// About 30 ms. Call it while no other OpObserver is active. Never negative; nullopt when the
// scratch database could not be written (a temporary directory that is not writable).
std::optional<double> measureTracingCostNsPerOp();

}  // namespace glueprof
