// The advisor's rules over what the device ran and what the host compiled: FP32 GEMMs on a GPU
// with tensor cores, streams that run one after another, JIT compilation inside the profiled
// steps. Their savings are busy time (or the host's compile time), bounded by a stated model,
// never more than the time they are about.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzers/AdvisorRuleFunctions.h"
#include "analyzers/HtaWindow.h"
#include "analyzers/Intervals.h"
#include "analyzers/NameMatch.h"
#include "analyzers/TensorCorePeaks.h"
#include "profiler/core/CountText.h"
#include "profiler/core/RunMetadata.h"

namespace glueprof {

namespace {

double msOf(TimestampNs ns) { return static_cast<double>(ns) / 1e6; }

// The measured steps' windows, as a set, and how many steps they are.
struct MeasuredWindows {
    IntervalSet windows;
    TimestampNs wallNs = 0;
    double steps = 0.0;
};

MeasuredWindows measuredWindowsOf(const TraceModel& trace) {
    MeasuredWindows m;
    const std::set<std::int32_t> measured = trace.measuredSteps();
    std::vector<Interval> windows;
    for (const StepInfo& s : trace.steps()) {
        if (measured.count(s.step) == 0 || s.endNs <= s.startNs) continue;
        windows.push_back({s.startNs, s.endNs});
        m.wallNs += s.endNs - s.startNs;
        m.steps += 1.0;
    }
    m.windows = unionOf(std::move(windows));
    return m;
}

// The largest entries of a by-name tally, as "name (detail)" references.
void pointAtLargest(Finding& f, const std::string& role,
                    const std::map<std::string, TimestampNs>& byName, double steps,
                    std::size_t most) {
    std::vector<std::pair<std::string, TimestampNs>> ranked(byName.begin(), byName.end());
    std::sort(ranked.begin(), ranked.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    for (std::size_t i = 0; i < std::min(most, ranked.size()); ++i)
        f.pointsAt(role, ranked[i].first,
                   fmt::format("({:.3f} ms per step)", msOf(ranked[i].second) / steps));
}

}  // namespace

namespace rule_functions {

// FP32 GEMMs on the FP32 units of a GPU whose tensor cores would run them faster (TF32 on Ampere
// and later, FP16/BF16 autocast before). The saving model: the GEMMs' time times
// (1 - FP32 peak / tensor-core peak), the most the peak rates allow; a GEMM too small to be
// compute-bound saves less.
void fp32Gemms(const AdvisorContext& c, const AdvisorRule& rule, std::vector<Finding>& findings) {
    const TraceModel& trace = *c.input.trace;
    const MeasuredWindows m = measuredWindowsOf(trace);
    if (m.steps <= 0.0) return;
    TimestampNs gemmNs = 0, kernelNs = 0;
    std::int64_t gemms = 0;
    std::map<std::string, TimestampNs> byKernel;
    std::unordered_map<StringId, bool> isGemm;
    // The first GPU's, as the step attribution whose compute time bounds the saving.
    std::optional<std::int64_t> device;
    for (const Lane& lane : trace.lanes())
        if (isDeviceWorkLane(lane)) device = device ? std::min(*device, lane.device) : lane.device;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!isDeviceWorkLane(trace.lanes()[i]) || trace.lanes()[i].device != device) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind != EventKind::kKernel) continue;
            const TimestampNs in = coveredLength(Interval{e.startNs, e.endNs}, m.windows);
            if (in == 0) continue;
            kernelNs += in;
            auto [it, added] = isGemm.try_emplace(e.name, false);
            if (added) it->second = isFp32GemmKernel(trace.name(e.name));
            if (!it->second) continue;
            gemmNs += in;
            ++gemms;
            byKernel[trace.name(e.name)] += in;
        }
    }
    if (gemmNs == 0 || static_cast<double>(gemmNs) <
                           rule.threshold("min_kernel_share") * static_cast<double>(kernelNs))
        return;
    std::vector<std::string> names;
    for (const auto& [name, ns] : byKernel) names.push_back(name);
    const std::optional<TensorCorePeaks> peaks = tensorCorePeaksOf(gpuNamesOf(trace.run()), names);
    if (!peaks || peaks->speedup() <= 1.0) return;
    Finding f;
    f.rule = rule.id;
    pointAtLargest(f, "kernel", byKernel, m.steps, 3);
    f.pointsAt("gpu", peaks->gpu).pointsAt("mode", peaks->mode);
    const double gemmMs = msOf(gemmNs) / m.steps;
    f.savingMsPerStep = gemmMs * (1.0 - 1.0 / peaks->speedup());
    f.measured("gemms_per_step", static_cast<double>(gemms) / m.steps, "count/step")
        .measured("gemm_ms_per_step", gemmMs, "ms/step")
        .measured("gemm_share_pct",
                  100.0 * static_cast<double>(gemmNs) / static_cast<double>(kernelNs), "%")
        .measured("speedup", peaks->speedup(), "x");
    if (peaks->mode != "TF32")
        f.fix =
            "train under torch.autocast(\"cuda\", dtype=torch.float16) with a "
            "torch.amp.GradScaler (the GPU has FP16 tensor cores, no TF32)";
    findings.push_back(f);
}

// Streams of one GPU, each busy a share of the steps, that run one after another: their busy
// times barely overlap. The saving model: if they overlapped fully, the steps would take the
// busiest stream's time, so at most the others' busy time is saved.
void serializedStreams(const AdvisorContext& c, const AdvisorRule& rule,
                       std::vector<Finding>& findings) {
    const TraceModel& trace = *c.input.trace;
    const MeasuredWindows m = measuredWindowsOf(trace);
    if (m.steps <= 0.0) return;
    struct Stream {
        std::string name;
        IntervalSet busy;
    };
    std::map<std::int64_t, std::vector<Stream>> byDevice;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (!isDeviceWorkLane(lane)) continue;
        std::vector<Interval> busy;
        for (const Event& e : trace.eventsOnLane(i))
            if (isDeviceWork(e)) busy.push_back({e.startNs, e.endNs});
        IntervalSet inSteps = intersectionOf(unionOf(std::move(busy)), m.windows);
        if (static_cast<double>(totalLength(inSteps)) >=
            rule.threshold("min_stream_share") * static_cast<double>(m.wallNs))
            byDevice[lane.device].push_back({lane.name, std::move(inSteps)});
    }
    for (const auto& [device, streams] : byDevice) {
        if (streams.size() < 2) continue;
        TimestampNs sum = 0, busiest = 0, overlap = 0;
        for (std::size_t a = 0; a < streams.size(); ++a) {
            const TimestampNs busy = totalLength(streams[a].busy);
            sum += busy;
            busiest = std::max(busiest, busy);
            for (std::size_t b = a + 1; b < streams.size(); ++b)
                overlap += totalLength(intersectionOf(streams[a].busy, streams[b].busy));
        }
        const TimestampNs others = sum - busiest;
        if (others <= 0 || static_cast<double>(overlap) >
                               rule.threshold("max_overlap_share") * static_cast<double>(others))
            continue;
        Finding f;
        f.rule = rule.id;
        for (const Stream& s : streams)
            f.pointsAt("stream", s.name,
                       fmt::format("({:.3f} ms per step)", msOf(totalLength(s.busy)) / m.steps));
        f.savingMsPerStep = msOf(others - overlap) / m.steps;
        f.measured("streams", static_cast<double>(streams.size()), "count")
            .measured("busy_ms_per_step", msOf(sum) / m.steps, "ms/step")
            .measured("overlap_pct",
                      100.0 * static_cast<double>(overlap) / static_cast<double>(others), "%");
        findings.push_back(f);
        return;  // one finding: the first GPU's
    }
}

// JIT compilation in the measured steps (NVRTC, nvFuser, TorchDynamo and Inductor, Triton's
// compiler and autotuner): the steps it falls in are not steady state, and a run that compiles
// every time pays it again. The saving: the compile time (outermost compile ranges, once).
void jitCompile(const AdvisorContext& c, const AdvisorRule& rule, std::vector<Finding>& findings) {
    const TraceModel& trace = *c.input.trace;
    const MeasuredWindows m = measuredWindowsOf(trace);
    if (m.steps <= 0.0 || m.wallNs <= 0) return;
    std::vector<Interval> compiling;
    std::map<std::string, TimestampNs> byName;
    std::unordered_map<StringId, bool> isCompile;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        TimestampNs openUntil = -1;  // the outermost compile event's end: nested ones count in it
        for (const Event& e : trace.eventsOnLane(i)) {
            auto [it, added] = isCompile.try_emplace(e.name, false);
            if (added) it->second = isJitCompileName(trace.name(e.name));
            if (!it->second || e.startNs < openUntil) continue;
            const TimestampNs in = coveredLength(Interval{e.startNs, e.endNs}, m.windows);
            openUntil = e.endNs;
            if (in == 0) continue;
            compiling.push_back({e.startNs, e.endNs});
            byName[trace.name(e.name)] += in;
        }
    }
    const TimestampNs compileNs = totalLength(intersectionOf(unionOf(compiling), m.windows));
    if (static_cast<double>(compileNs) <
        rule.threshold("min_share") * static_cast<double>(m.wallNs))
        return;
    Finding f;
    f.rule = rule.id;
    pointAtLargest(f, "compile", byName, m.steps, 3);
    f.savingMsPerStep = msOf(compileNs) / m.steps;
    f.measured("compile_ms_per_step", f.savingMsPerStep, "ms/step")
        .measured("compile_pct",
                  100.0 * static_cast<double>(compileNs) / static_cast<double>(m.wallNs), "%");
    findings.push_back(f);
}

}  // namespace rule_functions

}  // namespace glueprof
