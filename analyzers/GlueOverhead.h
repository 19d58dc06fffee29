#pragma once
// Glue-code overhead: each measured step's wall time split into parts that sum to it, by priority
// math > glue (glue, optimizer, data, pipeline, in that order) > copy > comm > sync wait > idle.
//
// Each lane is first cut into disjoint segments labelled by its innermost activity (an op inside a
// glue range inside an autograd node counts as the op's category; a wait inside an op counts as
// waiting). Activities: on a trace with kernels (GPU), the kernels, copies and memsets of device
// lanes plus sync/wait events anywhere; otherwise (CPU runs), the ops, categorized ranges (not
// phases), copies and waits of host-thread and copy lanes. Kernels without a category are
// classified by name: GEMM / attention kernels are math, the rest glue. Then, within the step's
// window, each part is the union of its segments over all lanes less what a higher-priority part
// already covers; idle is what remains. On a GPU trace, the host's top-level ops during the idle
// gaps are named (gapWork).
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

// The parts, in priority order; the index is the part's slot in GlueStep::partNs.
enum class GluePart : std::size_t {
    kMath,
    kGlue,
    kOptimizer,
    kData,
    kPipeline,
    kCopy,
    kComm,
    kSyncWait,
    kIdle,
    kCount
};
const char* toString(GluePart part);
constexpr std::size_t kGluePartCount = static_cast<std::size_t>(GluePart::kCount);

struct GlueStep {
    std::int32_t step = 0;
    TimestampNs wallNs = 0;
    std::vector<TimestampNs> partNs =
        std::vector<TimestampNs>(kGluePartCount, 0);  // sums to wallNs
    TimestampNs part(GluePart p) const { return partNs[static_cast<std::size_t>(p)]; }
};

// On a GPU trace, host work that ran while the device had nothing to do (the step's idle part):
// what the host was busy with in the gaps — the glue the device waited on.
struct GapWork {
    std::string name;        // a top-level op (or, on a trace without ops, a runtime call)
    double msPerStep = 0.0;  // its time inside the device's idle gaps, mean per measured step
    double countPerStep = 0.0;
};

struct GlueOverheadResult {
    std::vector<GlueStep> steps;          // measured steps, in step order
    std::vector<double> medianMsPerPart;  // per part, median over measured steps
    bool fromKernels = false;             // parts come from the device timeline (GPU trace)
    // Median share of the step spent outside math (glue parts + copy + sync wait + idle).
    double medianNonMathShare = 0.0;
    // GPU traces: the host work inside the idle gaps, largest first (at most 10).
    std::vector<GapWork> gapWork;
};

GlueOverheadResult analyzeGlueOverhead(const TraceModel& trace);

// What the parts mean for this result, in one line for every face that shows them: on the device
// timeline (a GPU trace) or on the host's (a CPU run, where "glue" is only what named glue ranges
// hold and "idle" is host time in no torch op).
const char* partsMeaning(const GlueOverheadResult& result);

// GEMM and attention kernels by name (cutlass, gemm, sgemm, matmul, flash, fmha, attention, sdpa).
bool isMathKernelName(const std::string& name);
// Collective kernels by name, case-insensitive: communication, not math. NCCL's and RCCL's
// (ncclDevKernel_*), NVSHMEM's, NVLink SHARP's multimem kernels, MSCCL's, DeepEP's, and custom
// all-reduces by what they do (`allreduce`/`all_reduce`, `allgather`/`all_gather`,
// `reducescatter`/`reduce_scatter`, `alltoall`/`all_to_all`, vLLM's `cross_device_reduce`).
bool isCommKernelName(const std::string& name);

}  // namespace glueprof
