#pragma once
// The event model shared by capture, store and analysis. Every enum value below is serialized
// into the trace store: never renumber, only append (docs/schema.md lists them).
#include <cstdint>
#include <string>

#include "profiler/core/Clock.h"

namespace glueprof {

using RunId = std::int64_t;
using LaneId = std::int64_t;
using StringId = std::int64_t;

enum class EventKind : std::int32_t {
    kRange = 0,   // a host range (ScopedRange / NVTX push-pop)
    kOp = 1,      // an aten op seen by the op observer
    kKernel = 2,  // a device kernel (CUPTI)
    kMemcpy = 3,  // a copy (CUPTI or the CPU copy worker)
    kMemset = 4,
    kSync = 5,     // a synchronization record (CUPTI)
    kRuntime = 6,  // a CUDA runtime/driver API call (CUPTI)
    kMarker = 7,   // an instantaneous marker (start == end)
    kWait = 8,     // a host thread waiting (pipeline worker, copy stream)
};

enum class Category : std::int32_t {
    kNone = 0,
    kMath = 1,       // the model's arithmetic: GEMMs, attention, norms
    kGlue = 2,       // glue code around the math: metadata, masks, routing, bookkeeping
    kCopy = 3,       // data movement between memories
    kSync = 4,       // the host waiting for the device
    kOptimizer = 5,  // optimizer step
    kData = 6,       // data loading, batch preparation
    kPipeline = 7,   // pipeline scheduling (upload, download, hand-off)
    kPhase = 8,      // a structural range: step, forward, backward, layer
    kComm = 9,       // communication between ranks: all-reduce, broadcast, barrier (c10d, NCCL)
};
constexpr Category kLastCategory = Category::kComm;

enum class LaneKind : std::int32_t {
    kHostThread = 0,
    kCudaStream = 1,
    kCopyStream = 2,
    kPipelineWorker = 3,
    kSimulatedWorker = 4,
};

enum class MemoryKind : std::int32_t {
    kUnknown = 0,
    kPageable = 1,
    kPinned = 2,
    kDevice = 3,
};

// Bit flags on an event.
enum EventFlags : std::uint32_t {
    kFlagNone = 0,
    kFlagWouldSync =
        1u << 0,              // the op blocks the host on CUDA (see profiler/torch_ops SyncOpTable)
    kFlagHostRead = 1u << 1,  // the op reads a device value back to the host
    kFlagNested = 1u << 2,    // the op runs inside another op (not a top-level dispatch)
    // A range that is a Python function's frame (Kineto's python_function, with_stack=True), not
    // a range the program annotated (record_function, NVTX).
    kFlagPythonFrame = 1u << 3,
};

constexpr std::int32_t kNoTag = -1;  // step/layer/microbatch not known

struct Event {
    RunId run = 0;
    LaneId lane = 0;
    EventKind kind = EventKind::kRange;
    Category category = Category::kNone;
    StringId name = 0;
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    std::int32_t step = kNoTag;
    std::int32_t layer = kNoTag;
    std::int32_t microbatch = kNoTag;
    std::int64_t correlation = 0;
    std::int64_t bytes = 0;
    MemoryKind srcKind = MemoryKind::kUnknown;
    MemoryKind dstKind = MemoryKind::kUnknown;
    std::uint32_t flags = kFlagNone;

    TimestampNs durationNs() const { return endNs - startNs; }
};

// An event of `kind` named `name` on `lane` of `run` over [start, end]; every tag and the rest at
// their defaults, for the writer to fill in what it knows.
Event makeEvent(RunId run, LaneId lane, EventKind kind, StringId name, TimestampNs start,
                TimestampNs end);

// One optimizer step, as the `steps` table stores it.
struct StepInfo {
    std::int32_t step = 0;
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    bool warmup = false;
    std::int32_t block = 0;  // A/B block: 0 warm-up, 1.. measured
    double loss = 0.0;
    std::int64_t tokens = 0;
};

const char* toString(EventKind kind);
const char* toString(Category category);
const char* toString(LaneKind kind);
const char* toString(MemoryKind kind);

}  // namespace glueprof
