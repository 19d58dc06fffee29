#pragma once
// What the tracer adds per recorded op on this machine, measured when a capture starts, so every
// run can say what its own tracing cost it: the same small forward and backward pass (tiny
// matmuls, a norm, an activation, a softmax, views; a training step's mix of ops and autograd
// nodes) with no observer and with an OpObserver recording into a scratch database in a private
// temporary directory, interleaved in rounds; the median difference per recorded event, in
// nanoseconds. It
// covers the trainer thread's side (libtorch's RecordFunction, the observer, the hand-off to the
// writer), not the writer thread's SQLite time, which runs beside it at a lower priority.
#include <optional>

namespace glueprof {

// About 50 ms. Call it while no other OpObserver is active. Positive, per recorded event; nullopt
// when it could not be measured: no private scratch database (a temporary directory that is not
// writable), or rounds that disagree by more than the cost (a machine too busy to tell).
std::optional<double> measureTracingCostNsPerOp();

}  // namespace glueprof
