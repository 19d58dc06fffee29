#include "analyzers/QueueLength.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>

#include "analyzers/HtaWindow.h"
#include "analyzers/Statistics.h"
#include "profiler/core/RuntimeCallNames.h"

namespace glueprof {

namespace {

// The calls HTA counts as enqueuing device work (TraceSymbolTable.get_runtime_launch_events_query).
bool isHtaEnqueueCall(const std::string& name) {
    return isAnyRuntimeCall(
        name,
        {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cudaMemcpyAsync",
         "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel",
         "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync", "hipMemcpyWithStream"});
}

struct QueueChange {
    TimestampNs at = 0;
    int delta = 0;  // +1 enqueued, -1 started
};

// The series' statistics (HTA's describe() of the samples, the time at a full queue).
StreamQueueLength summarize(std::vector<QueueChange>& changes, std::int64_t capacity) {
    // Enqueues before starts at the same instant: a start never precedes its own launch.
    std::stable_sort(changes.begin(), changes.end(),
                     [](const QueueChange& a, const QueueChange& b) {
                         return a.at != b.at ? a.at < b.at : a.delta > b.delta;
                     });
    StreamQueueLength s;
    std::vector<double> values;
    values.reserve(changes.size());
    std::int64_t depth = 0;
    double weighted = 0.0;
    for (std::size_t i = 0; i < changes.size(); ++i) {
        depth += changes[i].delta;
        values.push_back(static_cast<double>(depth));
        if (i + 1 == changes.size()) continue;  // HTA: the last sample has no duration
        const TimestampNs held = changes[i + 1].at - changes[i].at;
        weighted += static_cast<double>(depth) * static_cast<double>(held);
        if (depth >= capacity) s.atFullQueueNs += held;
    }
    s.samples = static_cast<std::int64_t>(values.size());
    double sum = 0.0;
    for (double v : values) sum += v;
    s.mean = sum / static_cast<double>(values.size());
    if (values.size() > 1) {
        double squares = 0.0;
        for (double v : values) squares += (v - s.mean) * (v - s.mean);
        s.stddev = std::sqrt(squares / static_cast<double>(values.size() - 1));
    }
    std::sort(values.begin(), values.end());
    s.min = static_cast<std::int64_t>(values.front());
    s.max = static_cast<std::int64_t>(values.back());
    s.p25 = linearQuantile(values, 0.25);
    s.p50 = linearQuantile(values, 0.50);
    s.p75 = linearQuantile(values, 0.75);
    const TimestampNs span = changes.back().at - changes.front().at;
    s.timeWeightedMean = span > 0 ? weighted / static_cast<double>(span) : 0.0;
    return s;
}

}  // namespace

QueueLengthResult analyzeQueueLength(const TraceModel& trace, std::int64_t capacity) {
    QueueLengthResult result;
    result.capacity = capacity;
    const std::optional<TimestampNs> cutoff = htaHostEventCutoff(trace);
    const HtaDeviceWork hta(trace);
    // The enqueue calls HTA reads, by correlation id: host events past the window are not read.
    std::unordered_map<std::int64_t, TimestampNs> enqueuedAt;
    std::unordered_map<StringId, bool> enqueueNames;
    TimestampNs first = std::numeric_limits<TimestampNs>::max();
    TimestampNs last = std::numeric_limits<TimestampNs>::min();
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const bool deviceLane = isDeviceWorkLane(trace.lanes()[i]);
        for (const Event& e : trace.eventsOnLane(i)) {
            const bool read =
                deviceLane ? !isDeviceWork(e) || hta.keeps(e) : !cutoff || e.startNs <= *cutoff;
            if (!read) continue;
            first = std::min(first, e.startNs);
            last = std::max(last, e.startNs);
            if (deviceLane || e.kind != EventKind::kRuntime || e.correlation == 0) continue;
            auto [name, added] = enqueueNames.try_emplace(e.name, false);
            if (added) name->second = isHtaEnqueueCall(trace.name(e.name));
            if (name->second) enqueuedAt[e.correlation] = e.startNs;
        }
    }
    if (first <= last) result.traceDurationNs = last - first;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (!isDeviceWorkLane(lane)) continue;
        std::vector<QueueChange> changes;
        for (const Event& e : trace.eventsOnLane(i)) {
            if (!isDeviceWork(e) || e.correlation == 0 || !hta.keeps(e)) continue;
            const auto enqueued = enqueuedAt.find(e.correlation);
            if (enqueued == enqueuedAt.end()) continue;
            changes.push_back({enqueued->second, +1});
            changes.push_back({e.startNs, -1});
        }
        if (changes.empty()) continue;
        StreamQueueLength s = summarize(changes, capacity);
        s.lane = lane.name;
        s.stream = lane.threadOrStream;
        s.atFullQueueShare =
            result.traceDurationNs > 0
                ? static_cast<double>(s.atFullQueueNs) / static_cast<double>(result.traceDurationNs)
                : 0.0;
        result.streams.push_back(std::move(s));
    }
    return result;
}

}  // namespace glueprof
