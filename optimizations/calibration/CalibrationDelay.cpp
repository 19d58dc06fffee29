#include "optimizations/calibration/CalibrationDelay.h"

#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"

namespace glueprof {

TimestampNs spinCalibrationDelay(const CalibrationSettings& settings, TimestampNs stepStartNs,
                                 HostTracer* tracer) {
    if (!settings.delayOn || settings.delayPercent <= 0.0) return 0;
    const TimestampNs start = Clock::nowNs();
    const auto delay = static_cast<TimestampNs>(static_cast<double>(start - stepStartNs) *
                                                settings.delayPercent / 100.0);
    ScopedRange range(tracer, names::kCalibrationDelay, Category::kGlue);
    while (Clock::nowNs() - start < delay) {
    }
    return delay;
}

}  // namespace glueprof
