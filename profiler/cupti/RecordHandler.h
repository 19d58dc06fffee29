#pragma once
// The production handling of CUPTI activity records, behind the seam tests feed with
// FakeCuptiRecords: each record of a completed buffer goes to handle(); resolve() (after every
// flush) matches correlations and writes events and diagnostics to the store.
//
//   kernels, memcpy, memset    -> the stream's lane ("GPU d stream s"), correlation = CUPTI's id,
//                                 step/layer/micro-batch/category of the aten op that launched them
//                                 (EXTERNAL_CORRELATION of the op's handle), else the flushed step
//   runtime / driver API calls -> the calling thread's host lane, nested in the op that made them
//   synchronizations, blocking -> placed by the trackers the import uses too
//   copies                        (profiler/core/SyncAssembly.h): a host sync on the calling
//                                 thread's lane, a `host sync` marker on the stream it waited for;
//                                 cudaStreamWaitEvent a marker on the stream at its call (CUPTI
//                                 gives host times, not when the device waited); a blocking copy
//                                 a sync over its API call, extended by a host sync the same
//                                 thread issues right after it (a copy into pageable memory, then
//                                 cudaStreamSynchronize): one sync point
//   CUDA events                -> markers on the stream lane
//   NVTX (MARKER)              -> ranges/marks on the thread's lane (glueprof's own domain is
//                                 skipped: its ranges are already host ranges)
//   OVERHEAD                   -> ranges on a "CUPTI overhead" lane
// Lost or unusable records are counted (profiler/core/LossDiagnostics.h), never dropped silently.
#include <cupti.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "profiler/core/DeviceCapture.h"
#include "profiler/core/SyncAssembly.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/cupti/GpuCapture.h"

namespace glueprof::cupti {

// Counts since the handler was made (tests and `doctor` read them; the store gets them per run).
struct CaptureCounts {
    std::int64_t records = 0;
    std::int64_t kernels = 0;
    std::int64_t memcpys = 0;
    std::int64_t memsets = 0;
    std::int64_t syncs = 0;           // host-blocking synchronizations (not merged into a copy)
    std::int64_t mergedSyncs = 0;     // syncs right after a blocking copy: one sync point with it
    std::int64_t blockingCopies = 0;  // copies that blocked the host (either direction)
    std::int64_t apiCalls = 0;
    std::int64_t markers = 0;
    std::int64_t attributedToOps = 0;  // device records tied to an aten op by external correlation
    std::map<std::string, std::int64_t> losses;  // diagnostic name -> count
};

class RecordHandler {
  public:
    explicit RecordHandler(CaptureEnvironment env);

    // The aten op with this external id (its trace correlation) started: its kernels inherit it.
    void noteOp(std::uint64_t externalId, const OpContext& op);
    void handle(const CUpti_Activity& record);  // any thread (CUPTI's buffer thread)
    void noteDropped(std::size_t records);      // cuptiActivityGetNumDroppedRecords of one buffer
    void noteBufferRefused();                   // a buffer request refused at the cap
    // Reads a completed buffer: `next` is cuptiActivityGetNextRecord bound to it. The buffer ends
    // at CUPTI_ERROR_MAX_LIMIT_REACHED; any other error ends it early and is counted
    // (cupti_unreadable_records: the rest of that buffer is lost).
    using NextRecord = std::function<CUptiResult(CUpti_Activity** record)>;
    void drainBuffer(const NextRecord& next);
    void noteCallFailure();                   // a CUPTI call failed while capturing
    void noteClockFallbacks(std::int64_t n);  // host timestamps not taken from CUPTI's clock
    // API calls of thread `tid` starting in [start, end] and their synchronization records are the
    // profiler's own (its device sync before a flush): they are not written.
    void ignoreHostCalls(std::int64_t tid, TimestampNs start, TimestampNs end);
    // Matches what came in since the last call and writes it, each record under the run and step
    // of the op that launched it (else the current run and `flushedStep`). A device record whose
    // API call has not come yet waits one more flush (CUPTI may deliver it late) before it is
    // counted as a lost correlation; the links a flush read stay for the next one.
    void resolve(std::int32_t flushedStep);
    // At the end of the capture: NVTX ranges still open are counted.
    void finish();

    CaptureCounts counts() const;

  private:
    struct ApiCall {
        std::int64_t tid = 0;
        TimestampNs start = 0;
        TimestampNs end = 0;
        std::uint32_t cbid = 0;
        bool driver = false;
    };
    struct DeviceRecord {
        EventKind kind = EventKind::kKernel;
        std::string name;
        TimestampNs start = 0;
        TimestampNs end = 0;
        std::uint32_t device = 0;
        std::uint32_t stream = 0;
        std::uint32_t correlation = 0;
        std::int64_t bytes = 0;
        MemoryKind src = MemoryKind::kUnknown;
        MemoryKind dst = MemoryKind::kUnknown;
        bool asynchronous = true;  // a copy: its API call returned before it ended (CUPTI's flag)
        CopyDirection direction = CopyDirection::kOther;  // a copy: from CUPTI's copy kind
        bool carried = false;  // already waited one flush for its API call
    };
    struct SyncActivity {
        CUpti_ActivitySynchronizationType type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN;
        TimestampNs start = 0;
        TimestampNs end = 0;
        std::uint32_t stream = 0;
        std::uint32_t correlation = 0;
        bool carried = false;
    };
    struct EventMark {
        std::uint32_t device = 0;
        std::uint32_t stream = 0;
        std::uint32_t correlation = 0;
        TimestampNs at = 0;
        bool carried = false;
    };
    struct MarkerStart {
        std::string name;
        std::int64_t tid = 0;
        TimestampNs start = 0;
    };
    struct NvtxRange {
        std::string name;
        std::int64_t tid = 0;
        TimestampNs start = 0;
        TimestampNs end = 0;  // == start for an instantaneous mark
    };
    struct Overhead {
        std::string name;
        TimestampNs start = 0;
        TimestampNs end = 0;
    };

    // One resolve: the run and step a record goes to when its op does not say, whether records
    // may still wait for their API call (not at the capture's end), and what waits.
    struct Resolution {
        RunId currentRun = 0;
        std::int32_t flushedStep = kNoTag;
        bool final = false;
        std::vector<CopyRecord> copies;  // this resolve's copies with their API call
        std::vector<DeviceRecord> carriedDevice;
        std::vector<SyncActivity> carriedSyncs;
        std::vector<EventMark> carriedEvents;
    };
    void resolve(std::int32_t flushedStep, bool final);
    void writeApiCalls(Resolution& r);
    void writeDeviceRecords(Resolution& r);
    void writeSyncs(Resolution& r);
    // The API calls of this flush and the previous one by correlation id (the runtime call where
    // a driver call shares its id), on their threads' lanes: what the sync trackers link by.
    LinkedCalls linkedCalls(const Resolution& r, std::unordered_map<LaneId, std::int64_t>& threads);
    std::vector<HostCall> apiCallsOfThread(std::int64_t tid) const;
    void writeEventMarks(Resolution& r);
    void writeHostRanges(Resolution& r);  // NVTX and CUPTI overhead
    void rotate(Resolution& r);           // m_mutex held
    // The op a CUPTI correlation belongs to (this flush's links, then the previous one's).
    const OpContext* opOf(std::uint32_t correlation) const;
    RunId runOf(std::uint32_t correlation, const Resolution& r) const;
    LaneId hostLane(RunId run, std::int64_t tid);
    // The API call of a CUPTI correlation (this flush's links, then the previous one's).
    const ApiCall* callOf(std::uint32_t correlation) const;

    template <typename Record>
    static DeviceRecord onStream(const Record& r, EventKind kind, std::string name);
    void lose(const char* name, std::int64_t count = 1);  // m_mutex held
    StringId intern(const std::string& text);
    StringId apiNameId(bool driver, std::uint32_t cbid);  // m_mutex held
    LaneId streamLane(RunId run, std::uint32_t device, std::uint32_t stream);
    LaneId namedLane(RunId run, const std::string& name);
    void tagFromOp(Event& e, std::uint32_t correlation, std::int32_t flushedStep,
                   Category fallback);
    void writeDiagnostics(RunId run);

    CaptureEnvironment m_env;
    mutable std::mutex m_mutex;
    CaptureCounts m_counts;
    std::map<std::string, std::int64_t> m_unwrittenLosses;
    std::unordered_map<std::uint64_t, OpContext> m_ops;  // external id -> op
    // CUPTI correlation -> external id
    std::unordered_map<std::uint32_t, std::uint64_t> m_external;
    // CUPTI correlation -> API call. A runtime call and the driver call it makes share the id, so
    // they are kept apart; device records match the runtime call first.
    std::unordered_map<std::uint32_t, ApiCall> m_api;
    std::unordered_map<std::uint32_t, ApiCall> m_driverApi;
    // The previous flush's links (already written), for records delivered one flush late.
    std::unordered_map<std::uint32_t, ApiCall> m_previousApi;
    std::unordered_map<std::uint32_t, ApiCall> m_previousDriverApi;
    std::unordered_map<std::uint32_t, std::uint64_t> m_previousExternal;
    std::unordered_map<std::uint64_t, OpContext> m_previousOps;
    std::vector<DeviceRecord> m_device;
    std::vector<SyncActivity> m_syncs;
    // The device of each stream a device record ran on (CUPTI's stream ids are the process's):
    // sync and CUDA event records carry no device.
    std::unordered_map<std::uint32_t, std::uint32_t> m_streamDevice;
    std::uint32_t deviceOfStream(std::uint32_t stream) const;
    std::vector<EventMark> m_events;
    std::unordered_map<std::uint32_t, MarkerStart> m_openMarkers;  // NVTX range id -> start
    std::unordered_set<std::uint32_t> m_ownMarkers;  // open ranges of glueprof's own domain
    std::vector<NvtxRange> m_nvtx;
    std::vector<Overhead> m_overheads;
    std::map<std::tuple<RunId, std::uint32_t, std::uint32_t>, LaneId> m_streamLanes;
    std::map<std::pair<RunId, std::string>, LaneId> m_namedLanes;
    struct ApiName {
        StringId id = 0;
        std::string text;
    };
    std::map<std::pair<bool, std::uint32_t>, ApiName> m_apiNames;  // (driver, callback id) -> name
    const ApiName& apiName(bool driver, std::uint32_t cbid);       // m_mutex held
    struct IgnoredWindow {
        std::int64_t tid = 0;
        TimestampNs start = 0;
        TimestampNs end = 0;
        int resolvesLeft = 2;  // this flush's records and any a flush late
    };
    std::vector<IgnoredWindow> m_ignored;
    bool ignored(const ApiCall& call) const;
};

}  // namespace glueprof::cupti
