#pragma once
// HostTracer: the capture session of one process. It routes events of the current run to the
// TraceWriter, gives every thread its own lane (created on first use), keeps the step/layer/
// microbatch tags of the innermost range per thread, and the per-step counters.
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "profiler/core/TraceWriter.h"
#include "profiler/host/StepCounters.h"

namespace glueprof {

struct Tags {
    std::int32_t step = kNoTag;
    std::int32_t layer = kNoTag;
    std::int32_t microbatch = kNoTag;
    // The category of the innermost non-phase range: ops inside a glue range are glue.
    Category category = Category::kNone;
};

class HostTracer {
public:
    explicit HostTracer(TraceWriter& writer);

    TraceWriter& writer() { return m_writer; }

    // Events recorded from now on belong to `run`; each thread gets a new lane in it.
    void setRun(RunId run);
    RunId run() const { return m_run.load(std::memory_order_acquire); }

    // The calling thread's lane in the current run, created on first use.
    LaneId laneForThisThread(LaneKind kind = LaneKind::kHostThread);
    // Names the calling thread's lanes from now on (e.g. "copy worker"); default "host thread N".
    static void nameThisThread(const std::string& name);

    StringId intern(std::string_view text) { return m_writer.intern(text); }
    void record(Event event);  // fills run and lane when zero; dropped while no run is set

    StepCounters& counters() { return m_counters; }
    // Writes the step record and this step's counters, then resets the counters.
    void endStep(const StepRecord& step);

    // Tags of the innermost ScopedRange on the calling thread.
    static Tags currentTags();
    static void setCurrentTags(const Tags& tags);

private:
    TraceWriter& m_writer;
    std::atomic<RunId> m_run{0};
    std::uint64_t m_instance;  // tells apart tracers that reuse an address
    StepCounters m_counters;
};

}  // namespace glueprof
