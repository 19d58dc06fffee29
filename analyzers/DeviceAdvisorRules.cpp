#include "analyzers/AdvisorRuleFunctions.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyzers/AdvisorRules.h"
#include "analyzers/HostCoverage.h"
#include "analyzers/HtaWindow.h"
#include "analyzers/IdleBreakdown.h"
#include "analyzers/Intervals.h"
#include "analyzers/LaunchCalls.h"
#include "analyzers/NameMatch.h"
#include "analyzers/Statistics.h"
#include "profiler/core/CountText.h"
#include "profiler/core/RuntimeCallNames.h"

namespace glueprof {

namespace {
double ms(TimestampNs ns) { return static_cast<double>(ns) / 1e6; }
}  // namespace

// A host sync in a measured step and the GPU idle it leaves behind.
struct SyncStall {
    Interval idle;
    const SyncPoint* sync = nullptr;
};

// What the rules share: the trace's steps and its device work, read once.
struct DeviceView {
    const TraceModel& trace;
    std::set<std::int32_t> measured;
    double steps = 1.0;  // the divisor of whole-run figures: the trace's steps (1 when none)
    std::vector<const Event*> kernels;  // on device lanes, whole run
    std::unordered_map<std::int64_t, const Event*> copyByCorrelation;
    IntervalSet busy;  // the union of all device work
    TimestampNs firstWork = 0, lastWork = 0;
    IntervalSet hostInTorch;  // the union of host threads' aten ops and runtime calls
    bool hasOps = false;      // the trace has aten ops (Nsight traces have none)

    TimestampNs measuredWallNs = 0;  // the measured steps' time together
    // Each step's first device work start, by the step the work was launched in.
    std::map<std::int32_t, TimestampNs> firstWorkOfStep;
    // How much of the host's side of the device's work the trace holds: the rules that read
    // what the host did while the GPU idled run only where it is recorded.
    HostCoverage coverage;
    // Each host sync of the measured steps with the idle it leaves, by the idle's start (set by
    // deviceViewOf: syncStallsOf).
    std::vector<SyncStall> syncStalls;

    explicit DeviceView(const TraceModel& t)
        : trace(t), measured(t.measuredSteps()), coverage(hostCoverageOf(t)) {
        steps = static_cast<double>(std::max<std::size_t>(1, t.steps().size()));
        for (const StepInfo& s : t.steps())
            if (measured.count(s.step) != 0) measuredWallNs += s.endNs - s.startNs;
        std::vector<Interval> device, host;
        for (std::size_t i = 0; i < t.lanes().size(); ++i) {
            const bool deviceLane = isDeviceWorkLane(t.lanes()[i]);
            const bool hostLane = t.lanes()[i].kind == LaneKind::kHostThread;
            for (const Event& e : t.eventsOnLane(i)) {
                if (hostLane && (e.kind == EventKind::kOp || e.kind == EventKind::kRuntime)) {
                    host.push_back({e.startNs, e.endNs});
                    hasOps = hasOps || e.kind == EventKind::kOp;
                }
                if (!deviceLane || !isDeviceWork(e)) continue;
                firstWork = device.empty() ? e.startNs : std::min(firstWork, e.startNs);
                lastWork = device.empty() ? e.endNs : std::max(lastWork, e.endNs);
                device.push_back({e.startNs, e.endNs});
                if (e.kind == EventKind::kKernel) kernels.push_back(&e);
                if (e.kind == EventKind::kMemcpy && e.correlation != 0)
                    copyByCorrelation.emplace(e.correlation, &e);
                if (e.step != kNoTag) {
                    auto [it, added] = firstWorkOfStep.try_emplace(e.step, e.startNs);
                    if (!added) it->second = std::min(it->second, e.startNs);
                }
            }
        }
        busy = unionOf(std::move(device));
        hostInTorch = unionOf(std::move(host));
        if (!busy.empty()) gpuIdle = differenceOf(IntervalSet{Interval{firstWork, lastWork}}, busy);
        gaps = idleGaps(t);
    }
    IntervalSet gpuIdle;  // where no stream runs anything, first device work to last
    IdleGaps gaps;        // each stream's gaps by HTA's categories

    // The part of `streamGaps` (gaps of single streams) where the whole GPU is idle.
    TimestampNs wholeGpuIdleIn(std::vector<Interval> streamGaps) const {
        return totalLength(intersectionOf(unionOf(std::move(streamGaps)), gpuIdle));
    }
    TimestampNs span() const { return lastWork - firstWork; }
};

namespace rule_functions {

// Points a finding at where the host was during a cause's time (StepAttribution's sites).
void pointAtSites(Finding& f, const std::string& role,
                  const std::array<std::vector<CauseSite>, kStepCauseCount>& sites,
                  StepCause cause) {
    for (const CauseSite& site : sites[static_cast<std::size_t>(cause)])
        f.pointsAt(role, site.name, fmt::format("({:.3f} ms per step)", site.msPerStep));
}

double share(TimestampNs part, TimestampNs whole) {
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The GPU waits for the host to launch: where the whole GPU is idle it is mostly HTA's host wait,
// the host is inside torch ops or runtime calls then, and the kernels are short.
void launchBound(const AdvisorContext& c, const AdvisorRule& rule, std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;
    const AdvisorInput& in = c.input;

    if (in.timeline == nullptr || in.timeline->kernels.kernels == 0 || v.busy.empty()) return;
    const TimestampNs idle = totalLength(v.gpuIdle);
    const TimestampNs hostWait = v.wholeGpuIdleIn(v.gaps.hostWait);
    const KernelMix& mix = in.timeline->kernels;  // TraceLens's: the kernels linked to a launch
    const double shortShare =
        static_cast<double>(mix.shortKernels) / static_cast<double>(mix.kernels);
    if (share(hostWait, idle) < rule.threshold("min_host_wait_share") ||
        share(idle, v.span()) < rule.threshold("min_idle_share") ||
        shortShare < rule.threshold("min_short_kernel_share"))
        return;
    // Launch-bound means the host is busy issuing the work while the GPU waits: inside torch ops
    // or runtime calls for most of the GPU's idle time (else it waits for something else, e.g. its
    // input: data_loader_stall).
    const double hostBusyShare = share(totalLength(intersectionOf(v.gpuIdle, v.hostInTorch)), idle);
    if (hostBusyShare < rule.threshold("min_host_busy_share")) return;
    Finding f;
    f.rule = rule.id;
    if (in.attribution != nullptr)
        pointAtSites(f, "host_site", in.attribution->sites, StepCause::kLaunch);
    f.savingMsPerStep = ms(hostWait) / v.steps;
    f.measured("idle_pct", 100.0 * share(idle, v.span()), "%")
        .measured("span_ms", ms(v.span()), "ms")
        .measured("host_wait_ms", ms(hostWait), "ms")
        .measured("host_wait_pct", 100.0 * share(hostWait, idle), "%")
        .measured("host_busy_pct", 100.0 * hostBusyShare, "%")
        .measured("short_kernels", static_cast<double>(mix.shortKernels), "count")
        .measured("kernels", static_cast<double>(mix.kernels), "count");
    if (in.launches != nullptr && in.launches->perLaunch.paired > 0) {
        const PerLaunchStats& p = in.launches->perLaunch;
        f.measured("launch_calls", static_cast<double>(p.paired), "count")
            .measured("launch_call_ms", ms(p.cpuDurationNs), "ms");
    }
    findings.push_back(f);
}

// The GPU idle while the host is inside torch ops, with kernels that are not short: the step
// waits on the host's own work in its ops (CPU-side tensors, Python loops behind an op, per-step
// setup), not on launch overhead (launch_bound's, where the kernels are short). From the step
// attribution: its "host launching" idle.
void hostBoundOps(const AdvisorContext& c, const AdvisorRule& rule,
                  std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;
    const AdvisorInput& in = c.input;

    if (in.attribution == nullptr || in.attribution->steps.empty() || in.timeline == nullptr ||
        in.timeline->kernels.kernels == 0 || v.measured.empty())
        return;
    const KernelMix& mix = in.timeline->kernels;
    const double shortShare =
        static_cast<double>(mix.shortKernels) / static_cast<double>(mix.kernels);
    if (shortShare >= rule.threshold("max_short_kernel_share")) return;
    double wallMs = 0.0;
    for (const StepAttribution& a : in.attribution->steps)
        if (a.device == in.attribution->steps.front().device) wallMs += ms(a.wallNs);
    wallMs /= static_cast<double>(v.measured.size());
    const double idleMs = in.attribution->meanMs[static_cast<std::size_t>(StepCause::kLaunch)];
    if (wallMs <= 0.0 || idleMs < rule.threshold("min_share") * wallMs) return;
    Finding f;
    f.rule = rule.id;
    pointAtSites(f, "host_site", in.attribution->sites, StepCause::kLaunch);
    f.savingMsPerStep = idleMs;
    f.measured("idle_ms_per_step", idleMs, "ms/step")
        .measured("idle_pct", 100.0 * idleMs / wallMs, "%")
        .measured("short_pct", 100.0 * shortShare, "%");
    findings.push_back(f);
}

// Communication the computation does not hide (TraceLens's exposed communication).
void exposedCommunication(const AdvisorContext& c, const AdvisorRule& rule,
                          std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;
    const AdvisorInput& in = c.input;

    if (in.timeline == nullptr) return;
    const GpuTimeline& g = in.timeline->timeline;
    if (g.totalCommNs == 0 ||
        share(g.exposedCommNs, g.totalNs) < rule.threshold("min_exposed_share"))
        return;
    Finding f;
    f.rule = rule.id;
    f.savingMsPerStep = ms(g.exposedCommNs) / v.steps;
    f.measured("comm_ms", ms(g.totalCommNs), "ms")
        .measured("exposed_ms", ms(g.exposedCommNs), "ms")
        .measured("exposed_of_comm_pct", 100.0 * share(g.exposedCommNs, g.totalCommNs), "%")
        .measured("exposed_of_timeline_pct", 100.0 * share(g.exposedCommNs, g.totalNs), "%");
    if (in.timeline->commComputeOverlapPct)
        f.measured("hta_overlap_pct", *in.timeline->commComputeOverlapPct, "%");
    findings.push_back(f);
}

// A runtime call on a host lane with the aten ops around it: the innermost (what issued the call,
// aten::copy_) and the outermost (the call the program made, aten::to); null when none.

// The name a finding gives the op behind a call: the program's call, with the op that issued the
// runtime call when that is another ("aten::is_nonzero (via aten::_local_scalar_dense)").
std::string issuerName(const TraceModel& trace, const LaunchCall& c) {
    if (c.outermostOp == nullptr) return trace.name(c.call->name);
    if (c.innermostOp == c.outermostOp || c.innermostOp->name == c.outermostOp->name)
        return trace.name(c.outermostOp->name);
    return fmt::format("{} (via {})", trace.name(c.outermostOp->name),
                       trace.name(c.innermostOp->name));
}

// Copies from or to pageable host memory inside measured steps, by the op that issues them.
void pageableCopies(const AdvisorContext& c, const AdvisorRule& rule,
                    std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;

    if (v.copyByCorrelation.empty() || v.measured.empty()) return;
    struct Group {
        std::int64_t count = 0;
        TimestampNs callNs = 0;
        std::set<std::string> directions;
    };
    std::map<std::string, Group> byOp;
    for (const auto& [correlation, call] : launchCallsOf(v.trace)) {
        const auto copy = v.copyByCorrelation.find(correlation);
        if (copy == v.copyByCorrelation.end()) continue;
        const Event& c = *copy->second;
        if (c.srcKind != MemoryKind::kPageable && c.dstKind != MemoryKind::kPageable) continue;
        if (v.measured.count(call.call->step) == 0) continue;
        Group& g = byOp[issuerName(v.trace, call)];
        // What pinning removes: the call's time from the copy's start on (before it, the call
        // waits for the work queued ahead of the copy, which a read needs anyway).
        ++g.count;
        g.callNs +=
            std::max<TimestampNs>(0, call.call->endNs - std::max(call.call->startNs, c.startNs));
        g.directions.insert(c.dstKind == MemoryKind::kPageable ? "device to host"
                                                               : "host to device");
    }
    if (byOp.empty()) return;
    const double steps = static_cast<double>(v.measured.size());
    std::vector<std::pair<std::string, Group>> ops(byOp.begin(), byOp.end());
    std::sort(ops.begin(), ops.end(),
              [](const auto& a, const auto& b) { return a.second.callNs > b.second.callNs; });
    Finding f;
    f.rule = rule.id;
    std::int64_t count = 0;
    TimestampNs callNs = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        count += ops[i].second.count;
        callNs += ops[i].second.callNs;
        if (i < 3) {
            std::string directions;
            for (const std::string& d : ops[i].second.directions)
                directions += (directions.empty() ? "" : ", ") + d;
            f.pointsAt("issuer", ops[i].first,
                       fmt::format("({} per step, {})",
                                   countText(static_cast<double>(ops[i].second.count) / steps),
                                   directions));
        }
    }
    f.savingMsPerStep = ms(callNs) / steps;
    f.measured("copies_per_step", static_cast<double>(count) / steps, "count/step")
        .measured("call_ms_per_step", f.savingMsPerStep, "ms/step");
    findings.push_back(f);
}

// The whole GPU's idle that a sync over [syncStart, t) leaves behind: from t until device work
// resumes (the end of the gap of gpuIdle that holds t) or `until`. None when the GPU was idle
// already as the sync began (it emptied no queue), or after the trace's last device work (nothing
// was left to launch).
Interval idleAfterSync(const DeviceView& v, TimestampNs syncStart, TimestampNs t,
                       TimestampNs until) {
    if (t < v.firstWork || t >= v.lastWork) return {};
    auto gap =
        std::upper_bound(v.gpuIdle.begin(), v.gpuIdle.end(), t,
                         [](TimestampNs value, const Interval& i) { return value < i.start; });
    if (gap == v.gpuIdle.begin()) return {};
    --gap;
    if (gap->end <= t || gap->start < syncStart) return {};
    return Interval{t, std::min(gap->end, until)};
}

// Each host sync of the measured steps with its idle after, by the idle's start: a sync empties
// the device's queue, so from its end the whole GPU waits until the host launches again.
std::vector<SyncStall> syncStallsOf(const AdvisorInput& in, const DeviceView& v) {
    std::vector<SyncStall> stalls;
    if (in.syncs == nullptr || v.busy.empty()) return stalls;
    std::map<std::int32_t, TimestampNs> stepEnd;
    for (const StepInfo& s : v.trace.steps()) stepEnd[s.step] = s.endNs;
    for (const SyncPoint& p : in.syncs->hostSyncs) {
        const auto end = stepEnd.find(p.step);
        if (end == stepEnd.end()) continue;
        stalls.push_back({idleAfterSync(v, p.startNs, p.startNs + p.durationNs, end->second), &p});
    }
    std::sort(stalls.begin(), stalls.end(),
              [](const SyncStall& a, const SyncStall& b) { return a.idle.start < b.idle.start; });
    return stalls;
}

// The GPU idle after host syncs, named by the call the program made (the outermost op around the
// sync). Syncs in one idle gap share it: each is given the part no earlier sync already left idle.
void syncStalls(const AdvisorContext& c, const AdvisorRule& rule, std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;
    const AdvisorInput& in = c.input;

    if (in.syncs == nullptr || in.syncs->hostSyncs.empty() || v.measured.empty() || v.busy.empty())
        return;
    const std::vector<SyncStall>& stalls = v.syncStalls;
    TimestampNs blockedNs = 0;
    for (const SyncStall& s : stalls) blockedNs += s.sync->durationNs;
    struct Group {
        std::int64_t count = 0;
        TimestampNs idleNs = 0;
    };
    std::map<std::string, Group> byOp;
    TimestampNs idleNs = 0;
    TimestampNs coveredUntil = 0;
    for (const SyncStall& s : stalls) {
        const TimestampNs added =
            Interval{std::max(s.idle.start, coveredUntil), s.idle.end}.length();
        coveredUntil = std::max(coveredUntil, s.idle.end);
        Group& g = byOp[s.sync->userOp.empty() ? s.sync->op : s.sync->userOp];
        ++g.count;
        g.idleNs += added;
        idleNs += added;
    }
    const auto count = static_cast<std::int64_t>(stalls.size());
    if (share(idleNs, v.measuredWallNs) < rule.threshold("min_idle_share")) return;
    std::vector<std::pair<std::string, Group>> ops(byOp.begin(), byOp.end());
    std::sort(ops.begin(), ops.end(),
              [](const auto& a, const auto& b) { return a.second.idleNs > b.second.idleNs; });
    const double steps = static_cast<double>(v.measured.size());
    Finding f;
    f.rule = rule.id;
    for (std::size_t i = 0; i < std::min<std::size_t>(ops.size(), 3); ++i) {
        f.pointsAt("sync_op", ops[i].first,
                   fmt::format("({} per step, {:.3f} ms idle after)",
                               countText(static_cast<double>(ops[i].second.count) / steps),
                               ms(ops[i].second.idleNs) / steps));
    }
    f.savingMsPerStep = ms(idleNs) / steps;
    f.measured("syncs_per_step", static_cast<double>(count) / steps, "count/step")
        .measured("blocked_ms_per_step", ms(blockedNs) / steps, "ms/step")
        .measured("idle_ms_per_step", f.savingMsPerStep, "ms/step")
        .measured("idle_pct", 100.0 * share(idleNs, v.measuredWallNs), "%");
    findings.push_back(f);
}

bool isElementwiseKernel(const std::string& name) {
    return containsAny(name, {"elementwise", "vectorized_", "unrolled_"});
}

// Many short elementwise kernels: what fusion removes is the gaps before them.
void elementwiseFusion(const AdvisorContext& c, const AdvisorRule& rule,
                       std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;

    if (v.kernels.empty()) return;
    TimestampNs all = 0, elementwise = 0;
    std::int64_t count = 0;
    std::unordered_map<StringId, bool> isElementwise;
    for (const Event* e : v.kernels) {
        all += e->durationNs();
        auto [it, added] = isElementwise.try_emplace(e->name, false);
        if (added) it->second = isElementwiseKernel(v.trace.name(e->name));
        if (!it->second) continue;
        elementwise += e->durationNs();
        ++count;
    }
    const double perStep = static_cast<double>(count) / v.steps;
    if (share(elementwise, all) < rule.threshold("min_kernel_share") ||
        perStep < rule.threshold("min_per_step"))
        return;
    // The short gaps (HTA's kernel wait, under 30 us) before elementwise kernels on their stream,
    // where the whole GPU is idle: launch gaps a fused kernel would not have.
    std::vector<Interval> before;
    for (std::size_t i = 0; i < v.trace.lanes().size(); ++i) {
        if (!isDeviceWorkLane(v.trace.lanes()[i])) continue;
        TimestampNs previousEnd = -1;
        for (const Event& e : v.trace.eventsOnLane(i)) {
            if (!isDeviceWork(e)) continue;
            if (e.kind == EventKind::kKernel && previousEnd >= 0 && e.startNs > previousEnd &&
                e.startNs - previousEnd < kKernelWaitThresholdNs && isElementwise[e.name])
                before.push_back({previousEnd, e.startNs});
            previousEnd = std::max(previousEnd, e.endNs);
        }
    }
    const TimestampNs gaps = v.wholeGpuIdleIn(std::move(before));
    Finding f;
    f.rule = rule.id;
    f.savingMsPerStep = ms(gaps) / v.steps;
    f.measured("kernels_per_step", perStep, "count/step")
        .measured("kernel_share_pct", 100.0 * share(elementwise, all), "%")
        .measured("ms_per_step", ms(elementwise) / v.steps, "ms/step")
        .measured("gap_ms_per_step", f.savingMsPerStep, "ms/step");
    findings.push_back(f);
}

bool isAllocatorCall(const std::string& name) {
    return isAnyRuntimeCall(name, {"cudaMalloc", "cudaFree", "cuMemAlloc", "cuMemFree",
                                   "cudaMallocAsync", "cudaFreeAsync", "hipMalloc", "hipFree"});
}

// The caching allocator going back to the driver inside steady-state steps: the measured steps
// after the first (the first fills the allocator's cache; one measured step shows no steady state).
void allocatorChurn(const AdvisorContext& c, const AdvisorRule& rule,
                    std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;

    if (v.measured.size() < 2 || v.kernels.empty()) return;
    std::set<std::int32_t> steady = v.measured;
    steady.erase(steady.begin());
    std::int64_t count = 0;
    TimestampNs callNs = 0;
    std::unordered_map<StringId, bool> isAllocator;
    std::map<std::string, std::int64_t> byCall;
    for (std::size_t i = 0; i < v.trace.lanes().size(); ++i) {
        if (v.trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        for (const Event& e : v.trace.eventsOnLane(i)) {
            if (e.kind != EventKind::kRuntime || steady.count(e.step) == 0) continue;
            auto [it, added] = isAllocator.try_emplace(e.name, false);
            if (added) it->second = isAllocatorCall(v.trace.name(e.name));
            if (!it->second) continue;
            ++count;
            callNs += e.durationNs();
            ++byCall[v.trace.name(e.name)];
        }
    }
    if (count == 0) return;
    const double steps = static_cast<double>(steady.size());
    Finding f;
    f.rule = rule.id;
    for (const auto& [name, n] : byCall)
        f.pointsAt("call", name, countText(static_cast<double>(n) / steps));
    f.savingMsPerStep = ms(callNs) / steps;
    f.measured("calls_per_step", static_cast<double>(count) / steps, "count/step")
        .measured("ms_per_step", f.savingMsPerStep, "ms/step");
    findings.push_back(f);
}

// The GPU idle at each step's start while the host runs no torch op: it waits for its input.
void dataLoaderStall(const AdvisorContext& c, const AdvisorRule& rule,
                     std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;

    if (v.kernels.empty() || v.measured.empty() || !v.hasOps) return;
    const std::map<std::int32_t, TimestampNs>& firstWork = v.firstWorkOfStep;
    std::vector<double> stallMs;
    TimestampNs stalled = 0;
    const TimestampNs walls = v.measuredWallNs;
    for (const StepInfo& s : v.trace.steps()) {
        if (v.measured.count(s.step) == 0) continue;
        const auto first = firstWork.find(s.step);
        if (first == firstWork.end()) continue;  // no device work of its own: nothing to wait for
        const TimestampNs until = std::min(first->second, s.endNs);
        const IntervalSet window{Interval{s.startNs, until}};
        const IntervalSet idle = differenceOf(window, v.busy);
        const TimestampNs outsideOps = totalLength(differenceOf(idle, v.hostInTorch));
        stallMs.push_back(ms(outsideOps));
        stalled += outsideOps;
    }
    // "Each step" needs two steps to say it: one step's idle start may be anything before it.
    if (stallMs.size() < 2 || share(stalled, walls) < rule.threshold("min_stalled_share") ||
        median(stallMs) <= 0.0)
        return;
    Finding f;
    f.rule = rule.id;
    f.savingMsPerStep = ms(stalled) / static_cast<double>(stallMs.size());
    f.measured("median_stall_ms", median(stallMs), "ms")
        .measured("stalled_pct", 100.0 * share(stalled, walls), "%");
    findings.push_back(f);
}

// The GPU idle inside steps, after each step's first device work, while no host thread runs a
// torch op or runtime call: the step's time goes to host code the trace does not show (Python
// between ops, data preparation on the main thread, logging, I/O). The idle before a step's first
// device work is data_loader_stall's.
void hostOutsideTorch(const AdvisorContext& c, const AdvisorRule& rule,
                      std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;

    if (v.kernels.empty() || v.measured.empty() || !v.hasOps || v.measuredWallNs <= 0) return;
    const std::map<std::int32_t, TimestampNs>& firstWork = v.firstWorkOfStep;
    // The idle after host syncs is sync_stalls' (whether or not it fires): not counted again.
    std::vector<Interval> afterSyncs;
    for (const SyncStall& s : v.syncStalls) afterSyncs.push_back(s.idle);
    const IntervalSet syncIdle = unionOf(std::move(afterSyncs));
    TimestampNs outside = 0;
    std::vector<double> shares;  // of each step
    for (const StepInfo& s : v.trace.steps()) {
        if (v.measured.count(s.step) == 0 || s.endNs <= s.startNs) continue;
        const auto first = firstWork.find(s.step);
        if (first == firstWork.end() || first->second >= s.endNs) continue;
        const IntervalSet idle =
            differenceOf(IntervalSet{Interval{first->second, s.endNs}}, v.busy);
        const TimestampNs ns =
            totalLength(differenceOf(differenceOf(idle, v.hostInTorch), syncIdle));
        outside += ns;
        shares.push_back(share(ns, s.endNs - s.startNs));
    }
    // The typical step, not one long pause in one step (a checkpoint save, an evaluation).
    if (shares.empty() || median(shares) < rule.threshold("min_share")) return;
    Finding f;
    f.rule = rule.id;
    f.savingMsPerStep = ms(outside) / static_cast<double>(v.measured.size());
    // With Python frames in the trace, the frames say where the host was.
    if (c.input.attribution != nullptr) {
        pointAtSites(f, "frame", c.input.attribution->sites, StepCause::kHostOutsideTorch);
        if (!f.refs.empty())
            f.fix =
                "take that Python code off the step (DataLoader workers, asynchronous logging, "
                "fewer checkpoints) or overlap it with the device's work";
    }
    f.measured("idle_ms_per_step", f.savingMsPerStep, "ms/step")
        .measured("idle_pct", 100.0 * share(outside, v.measuredWallNs), "%")
        .measured("median_step_pct", 100.0 * median(shares), "%")
        .measured("steps", static_cast<double>(shares.size()), "count");
    findings.push_back(f);
}

// Streams waiting on each other: where the whole GPU is idle it is mostly HTA's "other" idle
// (waits on other streams or events, not launches), and the trace has stream waits.
void crossStreamWaits(const AdvisorContext& c, const AdvisorRule& rule,
                      std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;
    const AdvisorInput& in = c.input;

    if (v.busy.empty()) return;
    const TimestampNs idle = totalLength(v.gpuIdle);
    const TimestampNs other = v.wholeGpuIdleIn(v.gaps.other);
    if (share(other, idle) < rule.threshold("min_other_share") ||
        share(other, v.span()) < rule.threshold("min_span_share"))
        return;
    std::int64_t waits = 0;
    for (std::size_t i = 0; i < v.trace.lanes().size(); ++i) {
        for (const Event& e : v.trace.eventsOnLane(i)) {
            if (e.kind != EventKind::kRuntime && e.kind != EventKind::kMarker) continue;
            const std::string& name = v.trace.name(e.name);
            if (containsAny(name, {"streamwaitevent", "stream wait"})) ++waits;
        }
    }
    if (waits == 0) return;
    Finding f;
    f.rule = rule.id;
    if (in.idle != nullptr) {
        for (const StreamIdle& s : *in.idle) {
            if (share(s.otherNs, s.hostWaitNs + s.kernelWaitNs + s.otherNs) < 0.5) continue;
            f.pointsAt("stream", s.lane, fmt::format("({:.3f} ms)", ms(s.otherNs)));
        }
    }
    f.savingMsPerStep = ms(other) / v.steps;
    f.measured("other_pct", 100.0 * share(other, idle), "%")
        .measured("other_ms", ms(other), "ms")
        .measured("stream_waits", static_cast<double>(waits), "count");
    findings.push_back(f);
}

// Runtime calls of a millisecond or more that are no wait: a launch, an allocation or a stream's
// creation takes microseconds; one that takes milliseconds pays a first call's costs (CUDA context
// creation, lazy module loading, cuBLAS/cuDNN handles and workspaces, autotuning). Launches count
// in every measured step when they are their kernel's first launch; the other calls in the first
// (later, allocation calls are allocator_churn's). When they take a tenth of the measured steps,
// the profile holds warm-up, not the steady state the other figures are read as.
// (isKernelLaunchCall, isWaitingCall: NameMatch.h.)
void warmupInProfile(const AdvisorContext& c, const AdvisorRule& rule,
                     std::vector<Finding>& findings) {
    const DeviceView& v = *c.device;
    const auto firstCallNs = static_cast<TimestampNs>(rule.threshold("min_call_ms") * 1e6);

    if (v.measured.empty()) return;
    const std::int32_t firstMeasured = *v.measured.begin();
    const TimestampNs walls = v.measuredWallNs;
    enum class Call { kLaunch, kSetup, kWait };
    std::unordered_map<StringId, Call> callOf;
    // A launch pays a first call's cost (its module's loading) the first time its kernel is
    // launched (LaunchCalls.h).
    const std::unordered_set<std::int64_t> firstLaunches =
        firstLaunchesOfTheirKernels(v.trace, launchCallsOf(v.trace));
    const auto firstLaunchOfItsKernel = [&](const Event& launch) {
        return firstLaunches.count(launch.correlation) != 0;
    };
    std::vector<const Event*> slow;
    for (std::size_t i = 0; i < v.trace.lanes().size(); ++i) {
        if (v.trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        for (const Event& e : v.trace.eventsOnLane(i)) {
            if (e.kind != EventKind::kRuntime || e.durationNs() < firstCallNs ||
                v.measured.count(e.step) == 0)
                continue;
            auto [it, added] = callOf.try_emplace(e.name, Call::kWait);
            if (added) {
                const std::string& name = v.trace.name(e.name);
                it->second = isKernelLaunchCall(name) ? Call::kLaunch
                             : isWaitingCall(name)    ? Call::kWait
                                                      : Call::kSetup;
            }
            if ((it->second == Call::kLaunch && firstLaunchOfItsKernel(e)) ||
                (it->second == Call::kSetup && e.step == firstMeasured))
                slow.push_back(&e);
        }
    }
    TimestampNs slowNs = 0;
    std::map<std::string, std::pair<std::int64_t, TimestampNs>> byCall;  // count, time
    for (const Event* e : slow) {
        slowNs += e->durationNs();
        auto& [count, ns] = byCall[v.trace.name(e->name)];
        ++count;
        ns += e->durationNs();
    }
    if (slow.empty() || share(slowNs, walls) < rule.threshold("min_share")) return;
    std::vector<std::pair<std::string, std::pair<std::int64_t, TimestampNs>>> calls(byCall.begin(),
                                                                                    byCall.end());
    std::sort(calls.begin(), calls.end(),
              [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    Finding f;
    f.rule = rule.id;
    for (std::size_t c = 0; c < std::min<std::size_t>(calls.size(), 3); ++c)
        f.pointsAt("call", calls[c].first,
                   fmt::format("({} call{}, {:.3f} ms in all)", calls[c].second.first,
                               calls[c].second.first == 1 ? "" : "s", ms(calls[c].second.second)));
    const Event* longestLaunch = nullptr;
    for (const Event* e : slow) {
        if (callOf.at(e->name) == Call::kLaunch &&
            (longestLaunch == nullptr || e->durationNs() > longestLaunch->durationNs()))
            longestLaunch = e;
    }
    for (const Event* k : v.kernels) {
        if (longestLaunch != nullptr && k->correlation != 0 &&
            k->correlation == longestLaunch->correlation) {
            f.pointsAt("launched", v.trace.name(k->name))
                .measured("longest_launch_ms", ms(longestLaunch->durationNs()), "ms");
            break;
        }
    }
    f.savingMsPerStep = ms(slowNs) / static_cast<double>(v.measured.size());
    f.measured("slow_calls", static_cast<double>(slow.size()), "count")
        .measured("slow_ms", ms(slowNs), "ms")
        .measured("slow_pct", 100.0 * share(slowNs, walls), "%");
    findings.push_back(f);
}

}  // namespace rule_functions

std::shared_ptr<const DeviceView> deviceViewOf(const AdvisorInput& in) {
    if (in.trace == nullptr) return nullptr;
    auto view = std::make_shared<DeviceView>(*in.trace);
    if (view->kernels.empty() && view->copyByCorrelation.empty()) return nullptr;
    view->syncStalls = rule_functions::syncStallsOf(in, *view);
    return view;
}

bool hostSideRecorded(const DeviceView& view) { return view.coverage.complete(); }

double meanMeasuredStepMs(const DeviceView& view) {
    if (view.measured.empty()) return -1.0;
    return ms(view.measuredWallNs) / static_cast<double>(view.measured.size());
}

}  // namespace glueprof
