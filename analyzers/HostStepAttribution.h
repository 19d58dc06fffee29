#pragma once
// Where each step's time went on the host, for a run without device work (a CPU run): the step's
// thread (the host thread with the most op time in the measured steps), every nanosecond of each
// measured step given one cause, by priority, each the part left after the ones before it:
//   would-sync   inside an op that would block the host on a GPU (.item(), .tolist(), nonzero:
//                kFlagWouldSync) — free on a CPU, a sync point on a GPU;
//   data         inside a data-loading range (the DataLoader's `enumerate(DataLoader)#...`, a
//                range of category data): the step waits for its batch on its own thread;
//   optimizer    inside the optimizer's step or zero_grad (`Optimizer.step#...`);
//   glue         inside a glue range (masks, metadata, routing: category glue);
//   copies       inside a copy op (aten::copy_, aten::to, aten::_to_copy, aten::clone, contiguous);
//   math         inside any other op;
//   capture      the capture's own cost, estimated: its calibrated cost per op (the run's
//                environment, TracingCost.h) times the ops the step recorded, taken from the time
//                between ops (where the observer runs) and at most all of it;
//   python       the rest: the thread between ops, in the program's own Python.
// The parts sum to the step's wall time exactly.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

enum class HostCause {
    kWouldSync,
    kData,
    kOptimizer,
    kGlue,
    kCopies,
    kMath,
    kCapture,
    kPython,
    kCount
};
constexpr std::size_t kHostCauseCount = static_cast<std::size_t>(HostCause::kCount);
const char* toString(HostCause cause);      // "inside would-sync ops (.item(), ...)", ...
const char* hostCauseKey(HostCause cause);  // "would_sync", "data", ... (JSON)

struct HostStepAttribution {
    std::int32_t step = 0;
    TimestampNs wallNs = 0;
    std::array<TimestampNs, kHostCauseCount> ns{};  // sums to wallNs

    TimestampNs of(HostCause cause) const { return ns[static_cast<std::size_t>(cause)]; }
    TimestampNs sum() const;
};

struct HostStepAttributionResult {
    std::string thread;  // the step's thread
    std::vector<HostStepAttribution> steps;
    std::array<double, kHostCauseCount> medianMs{};
    std::array<double, kHostCauseCount> meanMs{};
    bool captureEstimated = false;  // the run stored its calibrated cost per op
};

// Empty for a trace with device work (its steps are attributed per GPU: StepAttribution.h) or
// without measured steps or ops. `nsPerOp`: the capture's calibrated cost per op, when known.
HostStepAttributionResult attributeHostSteps(const TraceModel& trace,
                                             std::optional<double> nsPerOp);

}  // namespace glueprof
