#pragma once
// SyncAssembly: where the host waited for the device, placed from what a trace source saw — the
// one set of trackers that the import (profiler/import/TraceAssembly, for Kineto JSON and Nsight
// Systems) and glueprof's live CUPTI capture (profiler/cupti/RecordHandler) both feed, in one
// vocabulary: API calls by correlation id, copies on their streams, and synchronization records
// as CUPTI reports them.
//   - a host-blocking sync record goes on the host lane of the API call with its correlation id,
//     over the record's interval, named by that call when it is a sync call (as the source names
//     it), else by the record; without its call it is returned unplaced;
//   - optionally (traces of PyTorch before 2.3 hold no sync records) a sync call without a record
//     is a sync over the call;
//   - a stream wait (cudaStreamWaitEvent) is a marker on its stream at the record's start, named by
//     the record; a record of that kind correlated with another call is no stream's wait;
//   - a copy from the device into pageable memory, or any copy by a synchronous memcpy call
//     (profiler/core/BlockingCopy.h), adds a `blocking DtoH copy` / `blocking HtoD copy` sync over
//     its API call; a host sync right after it on the same lane extends it (SyncPlacement.h);
//   - a host sync whose waited stream is known, and a blocking copy, leave a `host sync` marker on
//     the stream waited for, with the correlation.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiler/core/BlockingCopy.h"
#include "profiler/core/Event.h"
#include "profiler/core/SyncPlacement.h"

namespace glueprof {

// A synchronization record's kind, as CUPTI (and so Kineto and Nsight) reports it.
enum class SyncRecordKind {
    kStream,           // cudaStreamSynchronize: the host waits for one stream
    kEvent,            // cudaEventSynchronize: the host waits for an event
    kContext,          // cudaDeviceSynchronize / cudaCtxSynchronize: the host waits for all
    kStreamWaitEvent,  // cudaStreamWaitEvent: a stream waits for an event, the host does not
    kUnknown,
};

struct SyncRecord {
    SyncRecordKind kind = SyncRecordKind::kUnknown;
    std::string name;  // as the source names it ("Stream Sync", "Event Sync", ...)
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    std::int64_t correlation = 0;
    std::int64_t device = 0;
    std::int64_t stream = -1;  // -1: no stream (both -1 and 4294967295 in the sources)
    // The stream whose work the host waits for: a stream sync's own, an event sync's recording
    // stream when the source says it; -1 when unknown or all (a context sync).
    std::int64_t waitedStream = -1;
    std::string process;  // "" unless one trace holds several processes' streams
};

// Kineto's name of a record of each kind (what glueprof's capture names its records too).
const char* syncRecordName(SyncRecordKind kind);

// A lane of the source's, as the source names it (an index, a stored lane id).
using SourceLane = std::int64_t;

// The API call (runtime, or driver where no runtime call has the id) of a correlation id.
struct LinkedCall {
    SourceLane lane;  // the host lane it ran on
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    StringId name = 0;      // the source's id of its name
    std::string_view text;  // its name; valid while the assembly runs
};
using LinkedCalls = std::unordered_map<std::int64_t, LinkedCall>;

// A copy on a stream, with its correlation id.
struct CopyRecord {
    std::int64_t correlation = 0;
    SourceLane streamLane = 0;
    MemoryKind src = MemoryKind::kUnknown;
    MemoryKind dst = MemoryKind::kUnknown;
    // Whether its API call returned before the copy ended (CUPTI says); nullopt: read from the
    // call's name (a cudaMemcpy* / cuMemcpy* without Async is synchronous).
    std::optional<bool> asynchronous;
    // The copy's direction where the source says it (CUPTI's copy kind); nullopt: from the memory
    // kinds (device to pageable or pinned host memory, or the reverse).
    std::optional<CopyDirection> direction;
};

// An event placed on a source lane (its run and lane fields are the source's to set).
struct PlacedEvent {
    SourceLane lane = 0;
    Event event;
    bool readsHost = false;  // a blocking device-to-host copy's sync: the host reads a value back
};

struct SyncAssemblyResult {
    // Host-blocking syncs, by lane, parents first; blocking copies' syncs extended by the syncs
    // right after them (those are not listed).
    std::vector<PlacedEvent> syncs;
    std::vector<PlacedEvent> markers;         // on stream lanes: stream waits, `host sync` marks
    std::vector<const SyncRecord*> unplaced;  // host syncs whose call is not among the calls
    std::int64_t merged = 0;                  // host syncs folded into a blocking copy's sync
    std::int64_t blockingCopies = 0;          // copies that blocked the host (either direction)
    std::int64_t fromCalls = 0;               // syncs made from sync calls without a record
    std::int64_t streamWaitsWithoutStream = 0;
    std::int64_t streamWaitsOfOtherCalls = 0;
    std::int64_t unknownKinds = 0;
};

struct SyncSource {
    // The lane of a stream (made when new); `correlation` says whose record asks.
    std::function<SourceLane(std::int64_t device, std::int64_t stream, const std::string& process,
                             std::int64_t correlation)>
        streamLane;
    std::function<StringId(std::string_view text)> intern;
    // The API calls that ran on a host lane (the merge rule asks what the thread did in between).
    std::function<std::vector<HostCall>(SourceLane lane)> callsOn;
    // A sync call without its record is a sync over the call (sources that may lack records).
    bool syncsFromCallsWithoutRecords = false;
};

// Places `syncs` and the blocking `copies` by the calls that issued them.
SyncAssemblyResult assembleSyncs(const SyncSource& source, const LinkedCalls& calls,
                                 const std::vector<CopyRecord>& copies,
                                 const std::vector<SyncRecord>& syncs);

}  // namespace glueprof
