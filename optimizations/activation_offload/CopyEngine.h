#pragma once
// CopyEngine: an in-order copy queue beside the compute stream, with events, as a CUDA copy
// stream is. Two implementations behind one interface:
//   - on a device with streams (CUDA), a side stream from the device-generic c10 API
//     (c10::impl::getDeviceGuardImpl, c10::Stream, c10::Event), so this compiles against a
//     CPU-only libtorch and runs on CUDA;
//   - on CPU, a copy worker thread plays the copy engine: jobs run in order on their own lane
//     (LaneKind::kCopyStream, "copy engine"), so copy/compute overlap is real and visible.
// On CPU the compute "stream" is the calling thread, which runs synchronously: an event marked on
// it has completed when it is marked, and waiting on a copy blocks the thread.
#include <ATen/ATen.h>

#include <cstdint>
#include <memory>

#include "profiler/core/Event.h"

namespace glueprof {

class HostTracer;

// A point on the compute stream or the copy queue.
class CopyEvent {
  public:
    virtual ~CopyEvent() = default;
};
using CopyEventPtr = std::shared_ptr<CopyEvent>;

struct CopyJob {
    at::Tensor dst;
    at::Tensor src;
    const char* name = "";  // a TraceNames range name: offload, reload
    std::int32_t step = kNoTag;
    std::int32_t layer = kNoTag;
    std::int32_t microbatch = kNoTag;
    MemoryKind srcKind = MemoryKind::kUnknown;
    MemoryKind dstKind = MemoryKind::kUnknown;
};

class CopyEngine {
  public:
    virtual ~CopyEngine() = default;
    // An event at the current end of the compute stream ("all queued compute").
    virtual CopyEventPtr markCompute() = 0;
    // Queues: wait for `after` (null: nothing), copy job.src into job.dst, then complete the
    // returned event. job.src stays valid until the copy has run.
    virtual CopyEventPtr copy(CopyJob job, const CopyEventPtr& after) = 0;
    // The compute stream waits for `event`; on CPU the calling thread blocks until it completes.
    // Returns whether the host thread blocked.
    virtual bool computeWaits(const CopyEventPtr& event) = 0;
    // Blocks until every queued copy has run.
    virtual void drain() = 0;
    // True when the compute stream is the calling thread (CPU): its stalls are host time.
    virtual bool computeIsHostThread() const = 0;
};

// The CUDA stream engine for a CUDA device, the copy worker thread otherwise. tracer may be null.
std::unique_ptr<CopyEngine> makeCopyEngine(const at::Device& device, HostTracer* tracer);

}  // namespace glueprof
