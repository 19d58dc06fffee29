#pragma once
// A run's device timeline as two peers define it, figure for figure (docs/metrics.md, "Device
// timeline"):
//   Holistic Trace Analysis (HTA 0.5): the temporal breakdown (hta/analyzers/breakdown_analysis.py,
//     get_temporal_breakdown) and the comm/compute overlap
//     (hta/analyzers/communication_analysis.py, get_comm_comp_overlap) of the device work HTA reads
//     (analyzers/HtaWindow.h), with HTA's kernel types (hta/utils/utils.py, get_kernel_type):
//     communication `^nccl.*Kernel`, memory (copies, memsets, names `^Memcpy`, `^Memset`, `^dma`),
//     computation every other kernel whose name holds neither `Memcpy` nor `Sync`.
//   TraceLens (AMD-AGI/TraceLens, TreePerf/gpu_event_analyser.py, GPUEventAnalyser.compute_metrics,
//     as TreePerfAnalyzer.get_df_gpu_timeline calls it): every kernel, copy and memset linked to
//     its launch, over the whole trace; copies are memcpy, kernels and memsets named as
//     collectives (or classed communication by the importer) are communication, the rest
//     computation.
// CPU runs have no device work: hasDeviceWork false, every figure 0.
#include <array>
#include <optional>
#include <string>
#include <utility>

#include "profiler/core/TraceModel.h"

namespace glueprof {

// HTA's temporal breakdown: kernel time is the first device event's start to the last one's end;
// idle time the part of it no device work covers; compute time the union of computation kernels;
// non-compute time the rest (copies, memsets, communication).
struct HtaTemporalBreakdown {
    TimestampNs kernelNs = 0;
    TimestampNs idleNs = 0;
    TimestampNs computeNs = 0;
    TimestampNs nonComputeNs = 0;
    // "kernel time 12.000 ms = idle 1.000 + compute 10.000 + non-compute 1.000 ms"
    std::string sumText() const;
};

// TraceLens's GPU timeline. total = first start to last end; computation = union of computation
// work; exposed comm = communication not under computation; exposed memcpy = copies under neither;
// busy = union of all; idle = total - busy (= total - computation - exposed comm - exposed memcpy).
struct GpuTimeline {
    TimestampNs computationNs = 0;
    TimestampNs exposedCommNs = 0;
    TimestampNs exposedMemcpyNs = 0;
    TimestampNs busyNs = 0;
    TimestampNs idleNs = 0;
    TimestampNs totalNs = 0;
    TimestampNs totalCommNs = 0;
    TimestampNs totalMemcpyNs = 0;
    // "total 4.000 ms = computation 3.000 + exposed comm 0.500 + exposed memcpy 0.100 + idle
    // 0.400 ms"
    std::string sumText() const;
    // The figures in TraceLens's order, named for a table: ("computation", computationNs), ...
    std::array<std::pair<const char*, TimestampNs>, 8> rows() const {
        return {{{"computation", computationNs},
                 {"exposed communication", exposedCommNs},
                 {"exposed memcpy", exposedMemcpyNs},
                 {"busy", busyNs},
                 {"idle", idleNs},
                 {"total", totalNs},
                 {"communication (all)", totalCommNs},
                 {"memcpy (all)", totalMemcpyNs}}};
    }
};

// Kernel categories as TraceLens reads them, coarse. A copy or memset is copy, and a collective
// (the glue breakdown's names) comm. Then, where the trace has the torch op that launched the
// kernel (the innermost op around its launch call), by that op, as TraceLens's categorize_torch_op
// does: scaled_dot_product*, flash_attn*, *_flash_attention*, *_efficient_attention*,
// FlashAttnFunc, cudnn attention -> attention; aten::mm, addmm, bmm, baddbmm, _scaled_mm, matmul,
// linear -> GEMM; *_norm ops -> normalization. Else by the kernel's name, lower-cased, the first
// that matches (TreePerfAnalyzer.categorize_kernel_by_name, with attention before GEMM, as its
// prefix stage reads flash* and fmha*: FlashAttention 3's kernels are CUTLASS kernels by name):
// attention, fmha, flash, attn, sdpa, scaled_dot_product, paged -> attention; gemm, cijk, matmul,
// cublas, nvjet, mfma, wmma, tensor_op, cutlass, rocblas, hipblas -> GEMM; norm -> normalization;
// activations (relu, gelu, silu, swish, sigmoid, tanh, softmax, act_and_mul) and elementwise,
// pointwise, add, mul, div, sub, scalar -> elementwise; reduce, sum, mean, max, min, argmax,
// argmin -> reduction; copy, transpose, permute, reshape, cast, convert, fill -> copy; else other.
enum class KernelCategory {
    kGemm,
    kAttention,
    kElementwise,
    kReduction,
    kNormalization,
    kCopy,
    kComm,
    kOther,
    kCount
};
const char* toString(KernelCategory category);  // "GEMM", "attention", ...
// `launchingOp`: the torch op that launched the kernel ("" when the trace does not say).
KernelCategory kernelCategoryOf(EventKind kind, const std::string& name,
                                const std::string& launchingOp = "");

struct KernelCategoryTime {
    std::int64_t count = 0;
    TimestampNs ns = 0;  // summed durations
};

// TraceLens's kernel view of the same launched work: time per category, and the short kernels.
constexpr TimestampNs kShortKernelNs = 10'000;  // "short": under 10 us
struct KernelMix {
    std::array<KernelCategoryTime, static_cast<std::size_t>(KernelCategory::kCount)> byCategory{};
    std::int64_t items = 0;  // kernels, copies and memsets
    TimestampNs ns = 0;      // their summed durations
    std::int64_t shortKernels = 0;
    TimestampNs shortKernelNs = 0;
    std::int64_t kernels = 0;  // kernels only (the short ones' denominator)
    // "GEMM 41%, elementwise 30%, ...": each category's share of the time, in category order.
    std::string shareText() const;
};

struct DeviceTimelineResult {
    bool hasDeviceWork = false;
    HtaTemporalBreakdown temporal;
    // HTA's comm/compute overlap: the share of communication kernel time with a computation kernel
    // running, in percent; nullopt without communication kernels.
    std::optional<double> commComputeOverlapPct;
    GpuTimeline timeline;
    KernelMix kernels;
};

DeviceTimelineResult analyzeDeviceTimeline(const TraceModel& trace);

}  // namespace glueprof
