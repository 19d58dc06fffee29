#include "profiler/host/HostTracer.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <vector>

namespace glueprof {

namespace {

std::atomic<std::uint64_t> g_nextTracerInstance{1};

struct ThreadLaneCache {
    std::uint64_t instance = 0;
    RunId run = 0;
    LaneKind kind = LaneKind::kHostThread;
    LaneId lane = 0;
};

// Every lane this thread has in any run: A/B arms alternate runs on one thread, and each run must
// keep one lane per thread (and kind), not a new one at every switch.
thread_local std::vector<ThreadLaneCache> t_lanes;
thread_local Tags t_tags;
thread_local std::string t_threadName;

std::int64_t osThreadId() { return static_cast<std::int64_t>(::syscall(SYS_gettid)); }

}  // namespace

HostTracer::HostTracer(TraceWriter& writer)
    : m_writer(writer), m_instance(g_nextTracerInstance.fetch_add(1)) {
    m_storedCounters.fill(true);
}

void HostTracer::setRun(RunId run) { m_run.store(run, std::memory_order_release); }

LaneId HostTracer::laneForThisThread(LaneKind kind) {
    RunId current = run();
    for (const ThreadLaneCache& cached : t_lanes) {
        if (cached.instance == m_instance && cached.run == current && cached.kind == kind)
            return cached.lane;
    }
    const std::int64_t tid = osThreadId();
    std::string name = t_threadName.empty() ? fmt::format("host thread {}", tid) : t_threadName;
    LaneId lane = 0;
    if (kind == LaneKind::kHostThread) {
        std::lock_guard<std::mutex> lock(m_threadLanesMutex);
        auto [it, added] = m_threadLanes.try_emplace({current, tid}, 0);
        if (added) it->second = m_writer.addLane(current, kind, name, -1, tid);
        lane = it->second;  // a device capture may have made it first
    } else {
        lane = m_writer.addLane(current, kind, name, -1, tid);
    }
    t_lanes.push_back(ThreadLaneCache{m_instance, current, kind, lane});
    return lane;
}

LaneId HostTracer::laneForOsThread(RunId run, std::int64_t tid) {
    std::lock_guard<std::mutex> lock(m_threadLanesMutex);
    auto [it, added] = m_threadLanes.try_emplace({run, tid}, 0);
    if (added)
        it->second = m_writer.addLane(run, LaneKind::kHostThread,
                                      fmt::format("host thread {}", tid), -1, tid);
    return it->second;
}

void HostTracer::nameThisThread(const std::string& name) { t_threadName = name; }

void HostTracer::record(Event event) {
    if (event.run == 0) event.run = run();
    if (event.run == 0)
        return;  // no run yet (e.g. a model being built before its first step): not traced
    if (event.lane == 0) event.lane = laneForThisThread();
    m_writer.record(event);
}

void HostTracer::endStep(const StepRecord& step) {
    if (DeviceCapture* capture = deviceCapture()) capture->flush(step.info.step);
    for (std::size_t i = 0; i < static_cast<std::size_t>(Counter::kCount); ++i) {
        if (!m_storedCounters[i]) continue;
        auto counter = static_cast<Counter>(i);
        m_writer.recordCounter(CounterRecord{step.run, step.info.step, counterName(counter),
                                             m_counters.value(counter)});
    }
    m_counters.reset();
    m_writer.recordStep(step);
}

void HostTracer::storeOnlyCounters(std::initializer_list<Counter> counted) {
    m_storedCounters.fill(false);
    for (Counter counter : counted) m_storedCounters[static_cast<std::size_t>(counter)] = true;
}

Tags HostTracer::currentTags() { return t_tags; }
void HostTracer::setCurrentTags(const Tags& tags) { t_tags = tags; }
const Tags& HostTracer::currentTagsOfThisThread() { return t_tags; }

}  // namespace glueprof
