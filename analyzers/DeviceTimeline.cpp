#include "analyzers/DeviceTimeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzers/GlueOverhead.h"
#include "analyzers/HtaWindow.h"
#include "analyzers/Intervals.h"
#include "analyzers/LaunchCalls.h"
#include "analyzers/NameMatch.h"

namespace glueprof {

namespace {

// Per name id, computed once (a trace has few distinct kernel names and many kernels).
template <typename Value>
class ByName {
  public:
    template <typename Compute>
    Value of(StringId name, Compute compute) {
        auto [it, added] = m_values.try_emplace(name, Value{});
        if (added) it->second = compute();
        return it->second;
    }

  private:
    std::unordered_map<StringId, Value> m_values;
};

struct Span {
    TimestampNs first = 0;
    TimestampNs last = 0;
    bool any = false;
    void add(const Event& e) {
        first = any ? std::min(first, e.startNs) : e.startNs;
        last = any ? std::max(last, e.endNs) : e.endNs;
        any = true;
    }
    TimestampNs length() const { return any ? last - first : 0; }
};

void analyzeHta(const TraceModel& trace, DeviceTimelineResult& result) {
    const HtaDeviceWork hta(trace);
    ByName<HtaKernelType> types;
    std::vector<Interval> all, compute, comm;
    Span span;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!isDeviceWorkLane(trace.lanes()[i])) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e) || !hta.keeps(e)) continue;
            span.add(e);
            all.push_back({e.startNs, e.endNs});
            const HtaKernelType type =
                types.of(e.name, [&] { return htaKernelType(e, trace.name(e.name)); });
            if (type == HtaKernelType::kComputation) compute.push_back({e.startNs, e.endNs});
            if (type == HtaKernelType::kCommunication) comm.push_back({e.startNs, e.endNs});
        }
    }
    if (!span.any) return;
    const IntervalSet computeUnion = unionOf(std::move(compute));
    const IntervalSet commUnion = unionOf(std::move(comm));
    HtaTemporalBreakdown& t = result.temporal;
    t.kernelNs = span.length();
    t.idleNs = t.kernelNs - totalLength(unionOf(std::move(all)));
    t.computeNs = totalLength(computeUnion);
    t.nonComputeNs = t.kernelNs - t.computeNs - t.idleNs;
    const TimestampNs commNs = totalLength(commUnion);
    if (commNs > 0) {
        result.commComputeOverlapPct =
            100.0 * static_cast<double>(totalLength(intersectionOf(commUnion, computeUnion))) /
            static_cast<double>(commNs);
    }
}

void addToMix(const Event& e, KernelCategory category, KernelMix& mix) {
    KernelCategoryTime& c = mix.byCategory[static_cast<std::size_t>(category)];
    ++c.count;
    c.ns += e.durationNs();
    ++mix.items;
    mix.ns += e.durationNs();
    if (e.kind != EventKind::kKernel) return;
    ++mix.kernels;
    if (e.durationNs() < kShortKernelNs) {
        ++mix.shortKernels;
        mix.shortKernelNs += e.durationNs();
    }
}

// Each runtime call's correlation, with the innermost op around the call on its host lane (the op
// that launched its device work; kNoOp when the call is in none).
constexpr StringId kNoOp = -1;
std::unordered_map<std::int64_t, StringId> launchingOps(const TraceModel& trace) {
    std::unordered_map<std::int64_t, StringId> launched;
    for (const auto& [correlation, call] : launchCallsOf(trace))
        launched[correlation] = call.innermostOp == nullptr ? kNoOp : call.innermostOp->name;
    return launched;
}

void analyzeTraceLens(const TraceModel& trace, DeviceTimelineResult& result) {
    const std::unordered_map<std::int64_t, StringId> launched = launchingOps(trace);
    ByName<bool> commNames;
    // By (kernel name, launching op): a trace has few distinct pairs and many kernels.
    std::unordered_map<StringId, std::unordered_map<StringId, KernelCategory>> categories;
    std::vector<Interval> all, computation, comm, memcpy;
    Span span;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!isDeviceWorkLane(trace.lanes()[i])) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            const auto launch = launched.find(e.correlation);
            if (!isDeviceWork(e) || launch == launched.end()) continue;
            span.add(e);
            auto [category, added] =
                categories[e.name].try_emplace(launch->second, KernelCategory::kOther);
            if (added) {
                category->second = kernelCategoryOf(
                    e.kind, trace.name(e.name),
                    launch->second == kNoOp ? std::string() : trace.name(launch->second));
            }
            addToMix(e, category->second, result.kernels);
            const Interval interval{e.startNs, e.endNs};
            all.push_back(interval);
            if (e.kind == EventKind::kMemcpy) {
                memcpy.push_back(interval);
            } else if (e.category == Category::kComm ||
                       commNames.of(e.name, [&] { return isCommKernelName(trace.name(e.name)); })) {
                comm.push_back(interval);
            } else {
                computation.push_back(interval);
            }
        }
    }
    if (!span.any) return;
    const IntervalSet computationUnion = unionOf(std::move(computation));
    const IntervalSet commUnion = unionOf(std::move(comm));
    const IntervalSet memcpyUnion = unionOf(std::move(memcpy));
    GpuTimeline& g = result.timeline;
    g.totalNs = span.length();
    g.computationNs = totalLength(computationUnion);
    g.totalCommNs = totalLength(commUnion);
    g.exposedCommNs = totalLength(differenceOf(commUnion, computationUnion));
    g.totalMemcpyNs = totalLength(memcpyUnion);
    g.exposedMemcpyNs =
        totalLength(differenceOf(differenceOf(memcpyUnion, computationUnion), commUnion));
    g.busyNs = totalLength(unionOf(std::move(all)));
    g.idleNs = g.totalNs - g.busyNs;
}

}  // namespace

std::string HtaTemporalBreakdown::sumText() const {
    const auto ms = [](TimestampNs ns) { return static_cast<double>(ns) / 1e6; };
    return fmt::format(
        "kernel time {:.3f} ms = idle {:.3f} + compute {:.3f} + non-compute {:.3f} ms",
        ms(kernelNs), ms(idleNs), ms(computeNs), ms(nonComputeNs));
}

std::string GpuTimeline::sumText() const {
    const auto ms = [](TimestampNs ns) { return static_cast<double>(ns) / 1e6; };
    return fmt::format(
        "total {:.3f} ms = computation {:.3f} + exposed comm {:.3f} + exposed memcpy {:.3f} + "
        "idle {:.3f} ms",
        ms(totalNs), ms(computationNs), ms(exposedCommNs), ms(exposedMemcpyNs), ms(idleNs));
}

std::string KernelMix::shareText() const {
    std::string text;
    for (std::size_t c = 0; c < byCategory.size(); ++c) {
        if (byCategory[c].count == 0) continue;
        text += fmt::format(
            "{}{} {:.0f}%", text.empty() ? "" : ", ", toString(static_cast<KernelCategory>(c)),
            ns > 0 ? 100.0 * static_cast<double>(byCategory[c].ns) / static_cast<double>(ns) : 0.0);
    }
    return text;
}

const char* toString(KernelCategory category) {
    switch (category) {
        case KernelCategory::kGemm:
            return "GEMM";
        case KernelCategory::kAttention:
            return "attention";
        case KernelCategory::kElementwise:
            return "elementwise";
        case KernelCategory::kReduction:
            return "reduction";
        case KernelCategory::kNormalization:
            return "normalization";
        case KernelCategory::kCopy:
            return "copy";
        case KernelCategory::kComm:
            return "communication";
        case KernelCategory::kOther:
        case KernelCategory::kCount:
            break;
    }
    return "other";
}

// The category of the torch op that launched a kernel, as TraceLens's categorize_torch_op reads
// its op names (its GEMM, SDPA and normalization ops); kOther when the op says nothing.
KernelCategory launchingOpCategory(const std::string& op) {
    if (op.empty()) return KernelCategory::kOther;
    if (containsAny(op,
                    {"scaled_dot_product", "flash_attention", "flash_attn", "efficient_attention",
                     "flashattnfunc", "fusedattnfunc", "cudnn_attention", "fmha"}))
        return KernelCategory::kAttention;
    for (const char* gemm : {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm",
                             "aten::_scaled_mm", "aten::matmul", "aten::linear"}) {
        if (op == gemm) return KernelCategory::kGemm;
    }
    if (containsAny(op, {"layer_norm", "batch_norm", "group_norm", "rms_norm", "instance_norm"}))
        return KernelCategory::kNormalization;
    return KernelCategory::kOther;
}

KernelCategory kernelCategoryOf(EventKind kind, const std::string& name,
                                const std::string& launchingOp) {
    if (kind == EventKind::kMemcpy || kind == EventKind::kMemset) return KernelCategory::kCopy;
    if (isCommKernelName(name)) return KernelCategory::kComm;
    if (const KernelCategory byOp = launchingOpCategory(launchingOp);
        byOp != KernelCategory::kOther)
        return byOp;
    // Attention before GEMM: FlashAttention 3's kernels are CUTLASS kernels by name
    // (cutlass::device_kernel<flash::FlashAttnFwdSm90<...>>).
    if (containsAny(name,
                    {"attention", "fmha", "flash", "attn", "sdpa", "scaled_dot_product", "paged"}))
        return KernelCategory::kAttention;
    if (containsAny(name, {"gemm", "cijk", "matmul", "cublas", "nvjet", "mfma", "wmma", "tensor_op",
                           "cutlass", "rocblas", "hipblas", "matrix_multiply"}))
        return KernelCategory::kGemm;
    if (containsAny(name, {"norm"})) return KernelCategory::kNormalization;
    if (containsAny(
            name, {"relu", "gelu", "silu", "swish", "sigmoid", "tanh", "softmax", "act_and_mul",
                   "activation", "elementwise", "pointwise", "add", "mul", "div", "sub", "scalar"}))
        return KernelCategory::kElementwise;
    if (containsAny(name, {"reduce", "sum", "mean", "max", "min", "argmax", "argmin"}))
        return KernelCategory::kReduction;
    if (containsAny(name, {"copy", "memcpy", "memset", "transpose", "permute", "reshape", "cast",
                           "convert", "fill"}))
        return KernelCategory::kCopy;
    return KernelCategory::kOther;
}

DeviceTimelineResult analyzeDeviceTimeline(const TraceModel& trace) {
    DeviceTimelineResult result;
    analyzeHta(trace, result);
    analyzeTraceLens(trace, result);
    result.hasDeviceWork = result.temporal.kernelNs > 0 || result.timeline.totalNs > 0;
    return result;
}

}  // namespace glueprof
