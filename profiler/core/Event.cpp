#include "profiler/core/Event.h"

namespace glueprof {

Event makeEvent(RunId run, LaneId lane, EventKind kind, StringId name, TimestampNs start,
                TimestampNs end) {
    Event e;
    e.run = run;
    e.lane = lane;
    e.kind = kind;
    e.name = name;
    e.startNs = start;
    e.endNs = end;
    return e;
}

const char* toString(EventKind kind) {
    switch (kind) {
        case EventKind::kRange:
            return "range";
        case EventKind::kOp:
            return "op";
        case EventKind::kKernel:
            return "kernel";
        case EventKind::kMemcpy:
            return "memcpy";
        case EventKind::kMemset:
            return "memset";
        case EventKind::kSync:
            return "sync";
        case EventKind::kRuntime:
            return "runtime";
        case EventKind::kMarker:
            return "marker";
        case EventKind::kWait:
            return "wait";
    }
    return "unknown";
}

const char* toString(Category category) {
    switch (category) {
        case Category::kNone:
            return "none";
        case Category::kMath:
            return "math";
        case Category::kGlue:
            return "glue";
        case Category::kCopy:
            return "copy";
        case Category::kSync:
            return "sync";
        case Category::kOptimizer:
            return "optimizer";
        case Category::kData:
            return "data";
        case Category::kPipeline:
            return "pipeline";
        case Category::kPhase:
            return "phase";
        case Category::kComm:
            return "comm";
    }
    return "unknown";
}

const char* toString(LaneKind kind) {
    switch (kind) {
        case LaneKind::kHostThread:
            return "host_thread";
        case LaneKind::kCudaStream:
            return "cuda_stream";
        case LaneKind::kCopyStream:
            return "copy_stream";
        case LaneKind::kPipelineWorker:
            return "pipeline_worker";
        case LaneKind::kSimulatedWorker:
            return "simulated_worker";
    }
    return "unknown";
}

const char* toString(MemoryKind kind) {
    switch (kind) {
        case MemoryKind::kUnknown:
            return "unknown";
        case MemoryKind::kPageable:
            return "pageable";
        case MemoryKind::kPinned:
            return "pinned";
        case MemoryKind::kDevice:
            return "device";
    }
    return "unknown";
}

}  // namespace glueprof
