#pragma once
// The calibration aid: an effect of known size for measuring what an A/B can detect
// (docs/metrics.md, "Calibration"). The `calibration_delay` toggle's baseline arm spends a fixed
// share of each step spinning inside a `calibration_delay` range; its optimized arm does not. Not
// glue anyone would write: it is never part of `ab --all`.
#include <cstdint>

#include "profiler/core/Clock.h"

namespace glueprof {

class HostTracer;

struct CalibrationSettings {
    double delayPercent = 5.0;  // the delay, as a percentage of the step's own time before it
    bool delayOn = false;       // the baseline arm's setting; the toggle turns it off
};

// At the end of a step that began at `stepStartNs`: spins (no sleep: a sleep's wake-up slack of
// tens of microseconds would blur a delay of that size) for delayPercent % of the time the step has
// taken so far, inside a `calibration_delay` range on `tracer` (may be null). Returns the delay in
// nanoseconds (0 when off).
TimestampNs spinCalibrationDelay(const CalibrationSettings& settings, TimestampNs stepStartNs,
                                 HostTracer* tracer);

}  // namespace glueprof
