#include "analyzers/StepAttribution.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "analyzers/GlueOverhead.h"
#include "analyzers/HostCoverage.h"
#include "analyzers/HtaWindow.h"
#include "analyzers/Intervals.h"
#include "analyzers/LaunchCalls.h"
#include "analyzers/NameMatch.h"
#include "analyzers/Statistics.h"
#include "profiler/core/BlockingCopy.h"

namespace glueprof {

const char* toString(StepCause cause) {
    switch (cause) {
        case StepCause::kCompute:
            return "compute";
        case StepCause::kCommunication:
            return "communication";
        case StepCause::kCopy:
            return "copy";
        case StepCause::kMemset:
            return "memset";
        case StepCause::kQueued:
            return "idle: work queued, not started (launch latency, or a wait on another stream)";
        case StepCause::kSyncWait:
            return "idle: host blocked in a sync";
        case StepCause::kBlockingCopy:
            return "idle: host in a blocking copy";
        case StepCause::kCommWait:
            return "idle: host in communication";
        case StepCause::kCompile:
            return "idle: host compiling (JIT: NVRTC, nvFuser, TorchDynamo, Inductor, Triton)";
        case StepCause::kSetupCall:
            return "idle: host in first-call or setup work (context, module loading, allocation)";
        case StepCause::kLaunch:
            return "idle: host launching (in torch ops or launch calls)";
        case StepCause::kData:
            return "idle: host before the step's first device work (its input, its setup)";
        case StepCause::kHostOutsideTorch:
            return "idle: host in its own code (Python, no torch op or runtime call)";
        case StepCause::kHostUnrecorded:
            return "idle: host not recorded (the trace holds the host's side in part)";
        case StepCause::kOutsideWindow:
            return "idle: outside the host's recorded window";
        case StepCause::kUnattributed:
        case StepCause::kCount:
            break;
    }
    return "idle: unattributed";
}

const char* stepCauseKey(StepCause cause) {
    static constexpr std::array<const char*, kStepCauseCount> kKeys = {"compute",
                                                                       "communication",
                                                                       "copy",
                                                                       "memset",
                                                                       "queued",
                                                                       "sync_wait",
                                                                       "blocking_copy",
                                                                       "comm_wait",
                                                                       "compile",
                                                                       "setup_call",
                                                                       "launch",
                                                                       "data",
                                                                       "host_outside_torch",
                                                                       "host_unrecorded",
                                                                       "outside_window",
                                                                       "unattributed"};
    const auto c = static_cast<std::size_t>(cause);
    return c < kKeys.size() ? kKeys[c] : "unattributed";
}

bool isDeviceBusy(StepCause cause) {
    return cause == StepCause::kCompute || cause == StepCause::kCommunication ||
           cause == StepCause::kCopy || cause == StepCause::kMemset;
}

TimestampNs StepAttribution::sum() const {
    TimestampNs total = 0;
    for (TimestampNs part : ns) total += part;
    return total;
}

namespace {

// What one device's stream lanes ran over the whole trace, by kind, and when work waited in its
// queue: from its launch call's return to its start.
struct DeviceWork {
    std::vector<Interval> compute, comm, copy, memset, queued;
};

constexpr TimestampNs kFirstCallLaunchNs = 1'000'000;

// The host lanes that launch device work: the threads whose state the GPU's idle waits on.
std::set<std::size_t> launchingLanesOf(const TraceModel& trace,
                                       const std::unordered_map<std::int64_t, LaunchCall>& calls) {
    std::set<std::size_t> lanes;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (!isDeviceWorkLane(trace.lanes()[i])) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e) || e.correlation == 0) continue;
            if (const auto call = calls.find(e.correlation); call != calls.end())
                lanes.insert(call->second.lane);
        }
    }
    return lanes;
}

// What the host threads were doing over the whole trace, as unions of intervals.
struct HostState {
    IntervalSet sync, blockingCopy, comm, compile, setup, launch;
};

// Compile and communication ranges count on any host thread (a compile worker, a collective's
// thread); the rest only on the threads that launch device work (all host threads when none
// does), so an op on a pin-memory or logging thread does not make the GPU's idle "launching".
// A runtime call that waits by design (a synchronize, a blocking copy, a query) is a sync wait;
// one that neither launches nor waits, or a launch of 1 ms or more that is its kernel's first
// (its module's loading), is setup.
HostState hostStateOf(const TraceModel& trace, const std::set<std::size_t>& launchingLanes,
                      const std::unordered_set<std::int64_t>& firstLaunches) {
    std::vector<Interval> sync, blockingCopy, comm, compile, setup, launch;
    enum class Call { kLaunch, kWait, kSetup };
    std::unordered_map<StringId, Call> callOf;
    std::unordered_map<StringId, bool> isCompile;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        const bool launching = launchingLanes.empty() || launchingLanes.count(i) != 0;
        for (const Event& e : trace.eventsOnLane(i)) {
            const Interval interval{e.startNs, e.endNs};
            auto [compiling, added] = isCompile.try_emplace(e.name, false);
            if (added) compiling->second = isJitCompileName(trace.name(e.name));
            if (compiling->second) compile.push_back(interval);
            if (e.category == Category::kComm && e.kind == EventKind::kRange) {
                comm.push_back(interval);
                continue;
            }
            if (!launching) continue;
            if (e.kind == EventKind::kSync || e.kind == EventKind::kWait) {
                const std::string& name = trace.name(e.name);
                const bool blocking =
                    name == names::kBlockingDtoHCopy || name == names::kBlockingHtoDCopy;
                (blocking ? blockingCopy : sync).push_back(interval);
            } else if (e.kind == EventKind::kOp) {
                launch.push_back(interval);
            } else if (e.kind == EventKind::kRuntime) {
                auto [call, seen] = callOf.try_emplace(e.name, Call::kSetup);
                if (seen) {
                    const std::string& name = trace.name(e.name);
                    call->second = isKernelLaunchCall(name) ? Call::kLaunch
                                   : isWaitingCall(name)    ? Call::kWait
                                                            : Call::kSetup;
                }
                const bool firstCall = call->second == Call::kLaunch &&
                                       e.durationNs() >= kFirstCallLaunchNs &&
                                       firstLaunches.count(e.correlation) != 0;
                if (call->second == Call::kWait) {
                    sync.push_back(interval);
                } else {
                    (call->second == Call::kSetup || firstCall ? setup : launch)
                        .push_back(interval);
                }
            }
        }
    }
    return HostState{unionOf(std::move(sync)),  unionOf(std::move(blockingCopy)),
                     unionOf(std::move(comm)),  unionOf(std::move(compile)),
                     unionOf(std::move(setup)), unionOf(std::move(launch))};
}

// Where the host was during each idle cause's time: each op's, runtime call's and Python
// frame's own part of it (a nested op or frame gives its children's part to them; ops, calls and
// frames nest each in their own kind), summed by name, largest first, mean ms per step.
std::array<std::vector<CauseSite>, kStepCauseCount> sitesOf(
    const TraceModel& trace, const std::array<IntervalSet, kStepCauseCount>& idle, double steps,
    const std::set<std::size_t>& launchingLanes) {
    // The causes' sets are disjoint: one sorted list of (interval, cause) finds an event's pieces
    // of idle with one search.
    struct Piece {
        Interval interval;
        std::size_t cause;
    };
    std::vector<Piece> pieces;
    for (std::size_t c = 0; c < kStepCauseCount; ++c)
        for (const Interval& interval : idle[c]) pieces.push_back({interval, c});
    std::sort(pieces.begin(), pieces.end(),
              [](const Piece& a, const Piece& b) { return a.interval.start < b.interval.start; });
    std::array<std::unordered_map<StringId, TimestampNs>, kStepCauseCount> byName;
    enum Family { kOps, kCalls, kRanges, kFrames, kFamilies };
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread || launchingLanes.count(i) == 0)
            continue;
        std::array<std::vector<const Event*>, kFamilies> open;  // each family's enclosing events
        for (const Event& e : trace.eventsOnLane(i)) {
            const Family family = e.kind == EventKind::kOp ? kOps
                                  : e.kind == EventKind::kRuntime || e.kind == EventKind::kSync ||
                                          e.kind == EventKind::kWait
                                      ? kCalls
                                  : (e.flags & kFlagPythonFrame) != 0 ? kFrames
                                  : e.kind == EventKind::kRange && e.category != Category::kPhase
                                      ? kRanges
                                      : kFamilies;
            if (family == kFamilies) continue;
            auto& stack = open[family];
            while (!stack.empty() && stack.back()->endNs <= e.startNs) stack.pop_back();
            // An event that nests in the one open gets it as its parent and opens in turn; one
            // that only partly overlaps it (a range across an op's edge) counts on its own and is
            // no one's parent.
            const bool nests = stack.empty() || e.endNs <= stack.back()->endNs;
            const Event* parent = !stack.empty() && nests ? stack.back() : nullptr;
            if (nests) stack.push_back(&e);
            // The first piece that ends after the event starts, then every piece it overlaps.
            auto piece = std::partition_point(pieces.begin(), pieces.end(), [&](const Piece& p) {
                return p.interval.end <= e.startNs;
            });
            for (; piece != pieces.end() && piece->interval.start < e.endNs; ++piece) {
                const TimestampNs in = std::min(e.endNs, piece->interval.end) -
                                       std::max(e.startNs, piece->interval.start);
                if (in <= 0) continue;
                byName[piece->cause][e.name] += in;
                if (parent != nullptr) byName[piece->cause][parent->name] -= in;
            }
        }
    }
    std::array<std::vector<CauseSite>, kStepCauseCount> sites;
    for (std::size_t c = 0; c < kStepCauseCount; ++c) {
        const TimestampNs total = totalLength(idle[c]);
        std::vector<std::pair<StringId, TimestampNs>> ranked(byName[c].begin(), byName[c].end());
        std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
        });
        for (const auto& [name, ns] : ranked) {
            // Under a hundredth of the cause's time says nothing of where it went.
            if (sites[c].size() == kSitesPerCause || ns * 100 < total) break;
            sites[c].push_back({trace.name(name), static_cast<double>(ns) / 1e6 / steps});
        }
    }
    return sites;
}

}  // namespace

StepAttributionResult attributeSteps(const TraceModel& trace) {
    StepAttributionResult result;
    std::map<std::int64_t, DeviceWork> devices;
    std::unordered_map<StringId, bool> commNames;
    const std::unordered_map<std::int64_t, LaunchCall> calls = launchCallsOf(trace);
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (!isDeviceWorkLane(lane)) continue;
        DeviceWork& d = devices[lane.device];
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e)) continue;
            const Interval interval{e.startNs, e.endNs};
            if (const auto launch = calls.find(e.correlation);
                e.correlation != 0 && launch != calls.end() &&
                launch->second.call->endNs < e.startNs)
                d.queued.push_back({launch->second.call->endNs, e.startNs});
            if (e.kind == EventKind::kMemcpy) {
                d.copy.push_back(interval);
            } else if (e.kind == EventKind::kMemset) {
                d.memset.push_back(interval);
            } else {
                auto [it, added] = commNames.try_emplace(e.name, false);
                if (added) it->second = isCommKernelName(trace.name(e.name));
                (e.category == Category::kComm || it->second ? d.comm : d.compute)
                    .push_back(interval);
            }
        }
    }
    if (devices.empty()) return result;
    const std::set<std::size_t> launchingLanes = launchingLanesOf(trace, calls);
    const HostState host =
        hostStateOf(trace, launchingLanes, firstLaunchesOfTheirKernels(trace, calls));
    result.coverage = hostCoverageOf(trace);
    const HostCoverage& coverage = result.coverage;
    // The host's recorded window; a trace without host events has none, and its idle is queued
    // work or not recorded.
    const IntervalSet hostWindow =
        coverage.hostEndNs > coverage.hostStartNs
            ? IntervalSet{Interval{coverage.hostStartNs, coverage.hostEndNs}}
            : IntervalSet{};
    const std::set<std::int32_t> measured = trace.measuredSteps();
    std::map<std::int64_t, std::vector<std::array<double, kStepCauseCount>>> perDevice;
    // The first device's idle, by cause, over its measured steps: where the host was then.
    std::array<std::vector<Interval>, kStepCauseCount> firstDeviceIdle;
    for (const auto& [device, work] : devices) {
        const bool first = device == devices.begin()->first;
        const IntervalSet compute = unionOf(work.compute);
        const IntervalSet comm = unionOf(work.comm);
        const IntervalSet copy = unionOf(work.copy);
        const IntervalSet memset = unionOf(work.memset);
        const IntervalSet queued = unionOf(work.queued);
        const IntervalSet all = unionOf([&] {
            std::vector<Interval> v(compute.begin(), compute.end());
            v.insert(v.end(), comm.begin(), comm.end());
            v.insert(v.end(), copy.begin(), copy.end());
            v.insert(v.end(), memset.begin(), memset.end());
            return v;
        }());
        for (const StepInfo& s : trace.steps()) {
            if (measured.count(s.step) == 0 || s.endNs <= s.startNs) continue;
            StepAttribution a;
            a.step = s.step;
            a.device = device;
            a.wallNs = s.endNs - s.startNs;
            IntervalSet left{Interval{s.startNs, s.endNs}};
            const Interval window{s.startNs, s.endNs};
            // Each whole-run set clipped to the step first: a step costs what it holds, not the
            // whole run's intervals.
            const auto set = [&](StepCause cause, const IntervalSet& part) {
                const IntervalSet taken = intersectionOf(left, clippedTo(part, window));
                left = differenceOf(left, taken);
                a.ns[static_cast<std::size_t>(cause)] = totalLength(taken);
                if (first && !isDeviceBusy(cause)) {
                    auto& idle = firstDeviceIdle[static_cast<std::size_t>(cause)];
                    idle.insert(idle.end(), taken.begin(), taken.end());
                }
            };
            set(StepCause::kCompute, compute);
            set(StepCause::kCommunication, comm);
            set(StepCause::kCopy, copy);
            set(StepCause::kMemset, memset);
            // What is left is the GPU idle: work waiting in the queue, else by what the host did.
            set(StepCause::kQueued, queued);
            if (!hostWindow.empty()) set(StepCause::kOutsideWindow, differenceOf(left, hostWindow));
            set(StepCause::kSyncWait, host.sync);
            set(StepCause::kBlockingCopy, host.blockingCopy);
            set(StepCause::kCommWait, host.comm);
            set(StepCause::kCompile, host.compile);
            set(StepCause::kSetupCall, host.setup);
            set(StepCause::kLaunch, host.launch);
            const IntervalSet inStep = clippedTo(all, Interval{s.startNs, s.endNs});
            const TimestampNs firstWork = inStep.empty() ? s.endNs : inStep.front().start;
            // Without the host's side, "in none of the above" is only "not in the trace".
            if (hostWindow.empty()) {
                set(StepCause::kUnattributed, left);  // no host event: nothing to tell
            } else if (!coverage.complete()) {
                set(StepCause::kHostUnrecorded, left);
            } else {
                set(StepCause::kData, IntervalSet{Interval{s.startNs, firstWork}});
                set(StepCause::kHostOutsideTorch, left);
            }
            std::array<double, kStepCauseCount> ms{};
            for (std::size_t c = 0; c < kStepCauseCount; ++c)
                ms[c] = static_cast<double>(a.ns[c]) / 1e6;
            perDevice[device].push_back(ms);
            result.steps.push_back(a);
        }
    }
    if (!perDevice.empty()) {
        std::array<IntervalSet, kStepCauseCount> idleSets;
        for (std::size_t c = 0; c < kStepCauseCount; ++c)
            idleSets[c] = unionOf(std::move(firstDeviceIdle[c]));
        result.sites = sitesOf(
            trace, idleSets, static_cast<double>(perDevice.begin()->second.size()), launchingLanes);
    }
    if (!perDevice.empty())
        columnMediansAndMeans(perDevice.begin()->second, result.medianMs, result.meanMs);
    std::stable_sort(result.steps.begin(), result.steps.end(),
                     [](const StepAttribution& a, const StepAttribution& b) {
                         return a.step != b.step ? a.step < b.step : a.device < b.device;
                     });
    return result;
}

}  // namespace glueprof
