#pragma once
// Where each step's time went on each GPU, every nanosecond attributed once: the device busy by
// kind, and the device idle by what the host was doing while the GPU had nothing to run.
//
// For a step [start, end) and a device (its stream lanes), the window is cut by priority, each part
// what is left of the window after the parts before it:
//   busy:  compute (kernels that are not collectives), then communication (collective kernels),
//          then copies, then memsets — the union of each kind's device work, so overlapping work
//          is counted once, under the first kind;
//   idle (the GPU runs nothing), first
//          queued      device work was already launched (its launch call had returned) and had not
//                      started: the device's own launch latency between kernels (HTA's kernel
//                      wait, which fusion and CUDA graphs remove), or a wait on another stream
//                      or an event;
//   then by the host threads' state:
//          sync        a host thread blocked in a synchronization (a sync event);
//          blocking copy  a host thread in a blocking copy (`blocking DtoH copy` / `HtoD`);
//          communication  a host thread in a communication range (a collective's host side);
//          compile     a host thread compiling code at run time (NVRTC, nvFuser, TorchDynamo,
//                      TorchInductor, Triton's compiler or autotuner: NameMatch's
//                      isJitCompileName, a range's, a Python frame's or a call's name);
//          setup       a host thread in a runtime call that neither launches nor waits (an
//                      allocation, a context's or a library's setup, a module load), or in a
//                      launch of a millisecond or more (it loads the kernel's module): first-call
//                      costs, or allocator churn;
//          launch      a host thread inside a torch op or a runtime call: the host is busy issuing
//                      work, the GPU waits for its launches;
//          data        before the step's first device work, the host in none of the above: the
//                      step waits for its input;
//          host outside torch  after it, the host in none of the above (Python between ops, the
//                      program's own code), on a trace whose host side is recorded
//                      (HostCoverage.h);
//          host not recorded  the same time on a trace whose host side is recorded in part (a
//                      trimmed or sampled trace): what the host did then is not in the trace;
//          outside the window  before the host's first recorded event or after its last: the
//                      profiling window of the host did not hold that time (taken right after
//                      queued work);
//          unattributed  the rest, where a trace has no host events at all; a named part that
//                      stays 0 where the host is recorded.
// The parts sum to the step's wall time exactly (set arithmetic on nanoseconds, no rounding).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/HostCoverage.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

enum class StepCause {
    kCompute,
    kCommunication,
    kCopy,
    kMemset,
    kQueued,
    kSyncWait,
    kBlockingCopy,
    kCommWait,
    kCompile,
    kSetupCall,
    kLaunch,
    kData,
    kHostOutsideTorch,
    kHostUnrecorded,
    kOutsideWindow,
    kUnattributed,
    kCount
};
constexpr std::size_t kStepCauseCount = static_cast<std::size_t>(StepCause::kCount);
const char* toString(StepCause cause);      // "compute", "idle: host blocked in a sync", ...
const char* stepCauseKey(StepCause cause);  // "compute", "sync_wait", ... (JSON)
bool isDeviceBusy(StepCause cause);         // compute, communication, copy, memset

struct StepAttribution {
    std::int32_t step = 0;
    std::int64_t device = 0;
    TimestampNs wallNs = 0;
    std::array<TimestampNs, kStepCauseCount> ns{};  // sums to wallNs

    TimestampNs of(StepCause cause) const { return ns[static_cast<std::size_t>(cause)]; }
    TimestampNs sum() const;
};

// A name the host was in during a cause's time (an op, a runtime call, a Python frame), with
// the time of that cause it was in, innermost first (a frame's or an op's own time: what its
// children were in goes to them), mean ms per measured step.
struct CauseSite {
    std::string name;
    double msPerStep = 0.0;
};

struct StepAttributionResult {
    std::vector<StepAttribution> steps;  // measured steps, each device, step order
    // The median over measured steps (per device, the first device's when there are several) of
    // each cause, ms: what a typical step spends where.
    std::array<double, kStepCauseCount> medianMs{};
    // The mean over the same steps, ms per step: what a saving "per step" can claim of each cause.
    std::array<double, kStepCauseCount> meanMs{};
    // Of the first device's idle causes, where the host threads that launch device work were:
    // their top ops, runtime calls, annotated ranges and Python frames by the time of the cause
    // they were in (at most kSitesPerCause for each cause).
    std::array<std::vector<CauseSite>, kStepCauseCount> sites;
    // How much of the host's side of the device's work the trace records.
    HostCoverage coverage;
};

constexpr std::size_t kSitesPerCause = 3;

// Empty for a trace without device work (a CPU run).
StepAttributionResult attributeSteps(const TraceModel& trace);

}  // namespace glueprof
