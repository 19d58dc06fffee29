#pragma once
// The seam between host tracing and a device activity capture (profiler/cupti on NVIDIA GPUs).
// The op observer tells it when an aten op starts and ends on the calling thread, so the capture
// can tie the kernels and copies the op launches to it (CUPTI external correlation); the step end
// makes it flush, so every step's device records are in the store before the step record.
#include <cstdint>

#include "profiler/core/Event.h"

namespace glueprof {

struct OpContext {
    StringId name = 0;
    std::int32_t step = kNoTag;
    std::int32_t layer = kNoTag;
    std::int32_t microbatch = kNoTag;
    Category category =
        Category::kNone;  // what the op's events are (math, or glue inside a glue range)
    // The run recording when the op started: its device records go to that run even when they
    // arrive after the tracer moved on (the other arm of an interleaved A/B).
    RunId run = 0;
};

class DeviceCapture {
  public:
    virtual ~DeviceCapture() = default;
    // `externalId` is the op's correlation in the trace (its RecordFunction handle).
    virtual void enterOp(std::uint64_t externalId, const OpContext& op) = 0;
    virtual void exitOp() = 0;
    // Forces out every record completed so far and writes it to the store; `step` is the step that
    // just ended (device records not tied to an op are counted in it).
    virtual void flush(std::int32_t step) = 0;
};

}  // namespace glueprof
