#pragma once
// HostTracer: the capture session of one process. It routes events of the current run to the
// TraceWriter, gives every thread its own lane (created on first use), keeps the step/layer/
// microbatch tags of the innermost range per thread, and the per-step counters.
#include <array>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "profiler/core/DeviceCapture.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/host/StepCounters.h"
#include "profiler/host/StepDetector.h"

namespace glueprof {

struct Tags {
    std::int32_t step = kNoTag;
    std::int32_t layer = kNoTag;
    std::int32_t microbatch = kNoTag;
    // The category of the innermost non-phase range: ops inside a glue range are glue.
    Category category = Category::kNone;
    // The name of that range when it is a glue range (build_packed_mask, moe_routing), else 0: the
    // op observer counts what blocks inside a given glue range (routing_host_reads).
    StringId glueRange = 0;
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
    // The host-thread lane of OS thread `tid` in `run` (the lane its own events go to; created,
    // named "host thread TID", when that thread has recorded nothing yet). Device captures put a
    // thread's CUDA API calls and synchronizations there, nested in the ops that made them.
    LaneId laneForOsThread(RunId run, std::int64_t tid);
    // Names the calling thread's lanes from now on (e.g. "copy worker"); default "host thread N".
    static void nameThisThread(const std::string& name);

    StringId intern(std::string_view text) { return m_writer.intern(text); }
    void record(Event event);  // fills run and lane when zero; dropped while no run is set

    StepCounters& counters() { return m_counters; }
    // Flushes the device capture (if any), writes the step record and this step's counters, then
    // resets the counters.
    void endStep(const StepRecord& step);
    // The counters endStep writes (default: every one). A capture that cannot count some (a
    // profiled program has no trainer to count its reloads) stores none of those rather than
    // zeros that would read as measured.
    void storeOnlyCounters(std::initializer_list<Counter> counted);

    // A device activity capture (CUPTI) to tell about ops and step ends; nullptr = none.
    void setDeviceCapture(DeviceCapture* capture) {
        m_capture.store(capture, std::memory_order_release);
    }
    DeviceCapture* deviceCapture() const { return m_capture.load(std::memory_order_acquire); }

    // Tags of the innermost ScopedRange on the calling thread.
    static Tags currentTags();
    static void setCurrentTags(const Tags& tags);
    // Where the calling thread's current tags are kept (valid for the thread's life), for a caller
    // that reads them per op without looking the thread-local up each time.
    static const Tags& currentTagsOfThisThread();

    // The steps of a program glueprof did not write (`glueprof profile`): an event recorded outside
    // any range that gives a step takes the detector's current step. nullptr (the default): none.
    void setStepDetector(const StepDetector* detector) {
        m_stepDetector.store(detector, std::memory_order_release);
    }
    // What an event recorded now on the calling thread is tagged with: currentTags(), its step
    // from the step detector where no range gave one.
    Tags tagsNow() const { return tagsNow(currentTags()); }
    // The same from the calling thread's currentTagsOfThisThread().
    Tags tagsNow(const Tags& threadTags) const {
        Tags tags = threadTags;
        if (tags.step == kNoTag) {
            if (const StepDetector* steps = m_stepDetector.load(std::memory_order_acquire))
                tags.step = steps->currentStep();
        }
        return tags;
    }

  private:
    TraceWriter& m_writer;
    std::atomic<RunId> m_run{0};
    std::uint64_t m_instance;  // tells apart tracers that reuse an address
    StepCounters m_counters;
    std::array<bool, static_cast<std::size_t>(Counter::kCount)> m_storedCounters;
    std::atomic<DeviceCapture*> m_capture{nullptr};
    std::atomic<const StepDetector*> m_stepDetector{nullptr};
    std::mutex m_threadLanesMutex;
    std::map<std::pair<RunId, std::int64_t>, LaneId>
        m_threadLanes;  // (run, OS tid) -> host-thread lane
};

}  // namespace glueprof
