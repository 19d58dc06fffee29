#pragma once
// When a host sync is part of the wait for the blocking copy before it (BlockingCopy.h): `.item()`
// of a tensor copied into pageable memory is the copy, then cudaStreamSynchronize, and the host
// waits once. One rule, for glueprof's own CUPTI capture (profiler/cupti/RecordHandler) and for
// imported traces (profiler/import/TraceAssembly): such a sync extends the copy's sync event to
// its own end, and the two are one sync point.
//
// The rule: a host sync S extends the blocking copy C of the same thread when
//   - no API call of that thread other than C's and S's own starts in [C end, S start),
//   - C is the thread's last blocking copy to end at or before S starts, and
//   - S is the thread's first host sync to start at or after C ends.
//
// Why this meaning of "right after": the question is whether the thread did anything between the
// two waits. An API call it started in between (a launch, an event record, another copy, a
// driver-only launch such as Triton's cuLaunchKernel) means it ran on and queued more work, so
// what it then waits for is not the copy alone: a sync point of its own. API calls are what both
// sources show for every thread (a CUPTI capture and a Kineto or Nsight trace alike), while they
// need not show anything else, so the calls decide. A call counts from its start: by then the
// thread had moved on, however the call nests or the source rounds its end. The copy's and the
// sync's own calls do not count: a sync's runtime call starts before the sync record inside it,
// and the driver calls a runtime call makes share its correlation id. The sync is taken at its
// record (else at its call, when the source wrote no record), the copy at its API call: those are
// the intervals the two sources store as sync events. A copy is extended at most once: a second
// sync waits again after the first returned.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "profiler/core/Clock.h"

namespace glueprof {

// One wait of a host thread: the sync over a blocking copy's API call, or a host-blocking sync
// (the source's synchronization record, or the sync call when the source has none).
struct HostWait {
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    std::int64_t correlation = 0;  // of the API call that waited
    bool blockingCopy = false;
};

// An API call (runtime or driver) of the same thread: what the thread did besides waiting.
struct HostCall {
    TimestampNs startNs = 0;
    std::int64_t correlation = 0;
};

constexpr std::size_t kNoCopy = std::numeric_limits<std::size_t>::max();

// For each of one thread's waits, the index (into `waits`) of the blocking copy whose sync this
// host sync extends; kNoCopy for a blocking copy and for a host sync that is a sync point of its
// own. `calls`: every API call of the thread, in any order. O((waits + calls) log).
std::vector<std::size_t> copiesExtendedBySyncs(const std::vector<HostWait>& waits,
                                               std::vector<HostCall> calls);

}  // namespace glueprof
