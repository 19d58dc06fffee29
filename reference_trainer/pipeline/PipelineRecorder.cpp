#include "reference_trainer/pipeline/PipelineRecorder.h"

#include <fmt/format.h>

namespace glueprof {

LaneId PipelineRecorder::laneOf(RunId run, int worker) {
    if (m_tracer == nullptr || run == 0) return 0;
    std::lock_guard<std::mutex> lock(m_mutex);
    auto [it, added] = m_lanes.try_emplace({run, worker}, 0);
    if (!added) return it->second;
    // Worker lanes are made in worker order (by the main thread at the step start), so worker w is
    // lane w.
    it->second =
        worker == kOptimizerLane
            ? m_tracer->writer().addLane(run, LaneKind::kHostThread, "optimizer", -1, -1)
            : m_tracer->writer().addLane(run, LaneKind::kPipelineWorker,
                                         fmt::format("pipeline worker {}", worker), -1, worker);
    return it->second;
}

void PipelineRecorder::record(RunId run, LaneId lane, const char* name, EventKind kind,
                              Category category, TimestampNs start, TimestampNs end,
                              std::int32_t step, std::int32_t stage, std::int32_t microbatch,
                              std::int64_t bytes) {
    if (m_tracer == nullptr || run == 0 || lane == 0 || end <= start) return;
    Event e = makeEvent(run, lane, kind, m_tracer->intern(name), start, end);
    e.category = category;
    e.step = step;
    e.layer = stage;
    e.microbatch = microbatch;
    e.bytes = bytes;
    m_tracer->writer().record(e);
}

}  // namespace glueprof
