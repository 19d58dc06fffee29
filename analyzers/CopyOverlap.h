#pragma once
// Copy/compute overlap: for each copy (memcpy event) in the measured steps, the part of its
// duration covered by the union of compute on the other lanes of the same device. Compute is the
// kernels when the trace has any (GPU); otherwise (CPU runs) the top-level aten ops on host-thread
// lanes less the time those threads were blocked in wait events. overlap ratio = covered copy time
// / copy time; exposed copy time = the rest.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct CopyTotals {
    std::int64_t copies = 0;
    std::int64_t bytes = 0;
    TimestampNs copyNs = 0;
    TimestampNs sizedCopyNs = 0;  // of the copies whose size the trace gives
    TimestampNs overlappedNs = 0;
    TimestampNs exposedNs() const { return copyNs - overlappedNs; }
    // Bytes moved per second of copy time (bytes per ns = GB/s, 10^9 bytes), as HTA's memory
    // bandwidth summary and Nsight report it, over the copies whose size is known; 0 without them.
    double bandwidthGBps() const {
        return sizedCopyNs > 0 ? static_cast<double>(bytes) / static_cast<double>(sizedCopyNs)
                               : 0.0;
    }
    // 0 when there are no copies.
    double overlapRatio() const {
        return copyNs > 0 ? static_cast<double>(overlappedNs) / static_cast<double>(copyNs) : 0.0;
    }
};

struct CopyOverlapResult {
    CopyTotals total;
    std::map<std::string, CopyTotals> byName;        // offload, reload, ...
    std::map<std::string, CopyTotals> byDirection;   // DtoH, HtoD, DtoD, HtoH
    std::map<std::string, CopyTotals> byHostMemory;  // pinned, pageable (copies touching the host)
    std::map<std::string, CopyTotals> byLane;  // per copy lane (stream / copy engine), by lane name
    std::size_t measuredSteps = 0;
    bool computeFromKernels = false;  // false: compute = top-level host ops (CPU run)

    double copyMsPerStep() const;
    double exposedMsPerStep() const;
};

CopyOverlapResult analyzeCopyOverlap(const TraceModel& trace);

// One copy and the parts of it that compute covered (for overlap strips).
struct CopySpan {
    std::string name;
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    std::vector<std::pair<TimestampNs, TimestampNs>> covered;  // sorted, inside [start, end)
};
// The copies of one step, in start order.
std::vector<CopySpan> copySpans(const TraceModel& trace, std::int32_t step);

// What an overlap strip draws: the copies of the first measured step over that step's span.
struct OverlapStrip {
    std::int32_t step = kNoTag;  // kNoTag: no measured step
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    std::vector<CopySpan> copies;
};
OverlapStrip overlapStripOf(const TraceModel& trace);

// "DtoH" etc. from the memory kinds of a copy; host = pageable or pinned.
std::string copyDirection(MemoryKind src, MemoryKind dst);

}  // namespace glueprof
