#pragma once
// The pipeline's own ranges, written directly to the trace writer on lanes of the step's run (an
// asynchronous optimizer may outlive the run's turn, so nothing goes through the tracer's current
// run). On each worker's pipeline-worker lane: forward / recompute / backward (layer tag = stage,
// micro-batch tag), wait (blocked on a dependency), RoundPipe's upload / download with their bytes;
// ops and layer ranges go to the worker's host lane as usual. The optimizer's range goes to an
// "optimizer" host lane of the run.
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "profiler/core/Event.h"
#include "profiler/host/HostTracer.h"

namespace glueprof {

class PipelineRecorder {
  public:
    // laneOf's worker for the optimizer's host lane.
    static constexpr int kOptimizerLane = -1;

    explicit PipelineRecorder(HostTracer* tracer) : m_tracer(tracer) {}

    // The lane of `run` for worker w (its pipeline-worker lane) or, for kOptimizerLane, the
    // optimizer's host lane; created on first use. 0 (records nothing) without a tracer or run.
    LaneId laneOf(RunId run, int worker);
    // A range on a lane of `run`; nothing without a tracer, run or lane, or when it is empty.
    void record(RunId run, LaneId lane, const char* name, EventKind kind, Category category,
                TimestampNs start, TimestampNs end, std::int32_t step, std::int32_t stage,
                std::int32_t microbatch, std::int64_t bytes = 0);

  private:
    HostTracer* m_tracer;
    std::mutex m_mutex;  // workers, the step's thread and the optimizer's look lanes up
    std::map<std::pair<RunId, int>, LaneId> m_lanes;
};

}  // namespace glueprof
