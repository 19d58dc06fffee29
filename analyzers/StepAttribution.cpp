#include "analyzers/StepAttribution.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "analyzers/GlueOverhead.h"
#include "analyzers/HtaWindow.h"
#include "analyzers/Intervals.h"
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
        case StepCause::kSetupCall:
            return "idle: host in setup calls (allocation, context, libraries)";
        case StepCause::kLaunch:
            return "idle: host launching (in torch ops or launch calls)";
        case StepCause::kData:
            return "idle: waiting for input (before the step's first device work)";
        case StepCause::kHostOutsideTorch:
            return "idle: host outside torch";
        case StepCause::kUnattributed:
        case StepCause::kCount:
            break;
    }
    return "idle: unattributed";
}

const char* stepCauseKey(StepCause cause) {
    static constexpr std::array<const char*, kStepCauseCount> kKeys = {
        "compute",   "communication",      "copy",        "memset",     "queued",
        "sync_wait", "blocking_copy",      "comm_wait",   "setup_call", "launch",
        "data",      "host_outside_torch", "unattributed"};
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

// Each runtime call's end, by correlation.
std::unordered_map<std::int64_t, TimestampNs> launchEnds(const TraceModel& trace) {
    std::unordered_map<std::int64_t, TimestampNs> ends;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (e.kind == EventKind::kRuntime && e.correlation != 0) ends[e.correlation] = e.endNs;
        }
    }
    return ends;
}

// What the host threads were doing over the whole trace, as unions of intervals.
struct HostState {
    IntervalSet sync, blockingCopy, comm, setup, launch;
    bool hasOps = false;  // the trace records torch ops: time outside them can be told
};

HostState hostStateOf(const TraceModel& trace) {
    std::vector<Interval> sync, blockingCopy, comm, setup, launch;
    std::unordered_map<StringId, bool> isSetup;
    bool hasOps = false;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        if (trace.lanes()[i].kind != LaneKind::kHostThread) continue;
        for (const Event& e : trace.eventsOnLane(i)) {
            const Interval interval{e.startNs, e.endNs};
            if (e.kind == EventKind::kSync || e.kind == EventKind::kWait) {
                const std::string& name = trace.name(e.name);
                const bool blocking =
                    name == names::kBlockingDtoHCopy || name == names::kBlockingHtoDCopy;
                (blocking ? blockingCopy : sync).push_back(interval);
            } else if (e.category == Category::kComm && e.kind == EventKind::kRange) {
                comm.push_back(interval);
            } else if (e.kind == EventKind::kOp || e.kind == EventKind::kRuntime) {
                auto [setupCall, added] = isSetup.try_emplace(e.name, false);
                if (added && e.kind == EventKind::kRuntime) {
                    const std::string& name = trace.name(e.name);
                    setupCall->second = !isKernelLaunchCall(name) && !isWaitingCall(name);
                }
                (setupCall->second ? setup : launch).push_back(interval);
                hasOps = hasOps || e.kind == EventKind::kOp;
            }
        }
    }
    return HostState{unionOf(std::move(sync)),   unionOf(std::move(blockingCopy)),
                     unionOf(std::move(comm)),   unionOf(std::move(setup)),
                     unionOf(std::move(launch)), hasOps};
}

// Takes from `left` what `part` covers of it, and returns that length.
TimestampNs take(IntervalSet& left, const IntervalSet& part) {
    const IntervalSet taken = intersectionOf(left, part);
    left = differenceOf(left, taken);
    return totalLength(taken);
}

}  // namespace

StepAttributionResult attributeSteps(const TraceModel& trace) {
    StepAttributionResult result;
    std::map<std::int64_t, DeviceWork> devices;
    std::unordered_map<StringId, bool> commNames;
    const std::unordered_map<std::int64_t, TimestampNs> launched = launchEnds(trace);
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (!isDeviceWorkLane(lane)) continue;
        DeviceWork& d = devices[lane.device];
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e)) continue;
            const Interval interval{e.startNs, e.endNs};
            if (const auto launch = launched.find(e.correlation);
                e.correlation != 0 && launch != launched.end() && launch->second < e.startNs)
                d.queued.push_back({launch->second, e.startNs});
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
    const HostState host = hostStateOf(trace);
    const std::set<std::int32_t> measured = trace.measuredSteps();
    std::map<std::int64_t, std::vector<std::array<double, kStepCauseCount>>> perDevice;
    for (const auto& [device, work] : devices) {
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
            const auto set = [&a](StepCause cause, TimestampNs ns) {
                a.ns[static_cast<std::size_t>(cause)] = ns;
            };
            set(StepCause::kCompute, take(left, compute));
            set(StepCause::kCommunication, take(left, comm));
            set(StepCause::kCopy, take(left, copy));
            set(StepCause::kMemset, take(left, memset));
            // What is left is the GPU idle: work waiting in the queue, else by what the host did.
            set(StepCause::kQueued, take(left, queued));
            set(StepCause::kSyncWait, take(left, host.sync));
            set(StepCause::kBlockingCopy, take(left, host.blockingCopy));
            set(StepCause::kCommWait, take(left, host.comm));
            set(StepCause::kSetupCall, take(left, host.setup));
            set(StepCause::kLaunch, take(left, host.launch));
            const IntervalSet inStep = clippedTo(all, Interval{s.startNs, s.endNs});
            const TimestampNs firstWork = inStep.empty() ? s.endNs : inStep.front().start;
            set(StepCause::kData, take(left, IntervalSet{Interval{s.startNs, firstWork}}));
            set(host.hasOps ? StepCause::kHostOutsideTorch : StepCause::kUnattributed,
                totalLength(left));
            std::array<double, kStepCauseCount> ms{};
            for (std::size_t c = 0; c < kStepCauseCount; ++c)
                ms[c] = static_cast<double>(a.ns[c]) / 1e6;
            perDevice[device].push_back(ms);
            result.steps.push_back(a);
        }
    }
    if (!perDevice.empty()) {
        const auto& first = perDevice.begin()->second;
        for (std::size_t c = 0; c < kStepCauseCount; ++c) {
            std::vector<double> values;
            for (const auto& ms : first) values.push_back(ms[c]);
            result.medianMs[c] = values.empty() ? 0.0 : median(values);
            double sum = 0.0;
            for (double v : values) sum += v;
            result.meanMs[c] = values.empty() ? 0.0 : sum / static_cast<double>(values.size());
        }
    }
    std::stable_sort(result.steps.begin(), result.steps.end(),
                     [](const StepAttribution& a, const StepAttribution& b) {
                         return a.step != b.step ? a.step < b.step : a.device < b.device;
                     });
    return result;
}

}  // namespace glueprof
