#include "profiler/host/HostTracer.h"

#include <pthread.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <fmt/format.h>

namespace glueprof {

namespace {

std::atomic<std::uint64_t> g_nextInstance{1};

struct ThreadLaneCache {
    std::uint64_t instance = 0;
    RunId run = 0;
    LaneKind kind = LaneKind::kHostThread;
    LaneId lane = 0;
};

thread_local ThreadLaneCache t_lane;
thread_local Tags t_tags;
thread_local std::string t_threadName;

std::int64_t osThreadId() { return static_cast<std::int64_t>(::syscall(SYS_gettid)); }

}  // namespace

HostTracer::HostTracer(TraceWriter& writer)
    : m_writer(writer), m_instance(g_nextInstance.fetch_add(1)) {}

void HostTracer::setRun(RunId run) { m_run.store(run, std::memory_order_release); }

LaneId HostTracer::laneForThisThread(LaneKind kind) {
    RunId current = run();
    if (t_lane.instance == m_instance && t_lane.run == current && t_lane.kind == kind) {
        return t_lane.lane;
    }
    std::int64_t tid = osThreadId();
    std::string name =
        t_threadName.empty() ? fmt::format("host thread {}", tid) : t_threadName;
    t_lane = ThreadLaneCache{m_instance, current, kind, m_writer.addLane(current, kind, name, -1, tid)};
    return t_lane.lane;
}

void HostTracer::nameThisThread(const std::string& name) { t_threadName = name; }

void HostTracer::record(Event event) {
    if (event.run == 0) event.run = run();
    if (event.lane == 0) event.lane = laneForThisThread();
    m_writer.record(event);
}

void HostTracer::endStep(const StepRecord& step) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(Counter::kCount); ++i) {
        auto counter = static_cast<Counter>(i);
        m_writer.recordCounter(CounterRecord{step.run, step.info.step, counterName(counter),
                                             m_counters.value(counter)});
    }
    m_counters.reset();
    m_writer.recordStep(step);
}

Tags HostTracer::currentTags() { return t_tags; }
void HostTracer::setCurrentTags(const Tags& tags) { t_tags = tags; }

}  // namespace glueprof
