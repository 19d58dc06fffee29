#include "profiler/core/RecordSink.h"

#include <chrono>

namespace glueprof {

const char* toString(RunStatus status) {
    switch (status) {
        case RunStatus::kRunning:
            return "running";
        case RunStatus::kComplete:
            return "complete";
        case RunStatus::kFailed:
            return "failed";
        case RunStatus::kAborted:
            return "aborted";
    }
    return "unknown";
}

bool StoreBatch::empty() const {
    return names.empty() && lanes.empty() && eventCount == 0 && steps.empty() && counters.empty() &&
           diagnostics.empty() && statuses.empty();
}

void StoreBatch::clear() {
    names.clear();
    lanes.clear();
    eventChunks.clear();
    eventCount = 0;
    steps.clear();
    counters.clear();
    diagnostics.clear();
    statuses.clear();
}

std::int64_t unixNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace glueprof
