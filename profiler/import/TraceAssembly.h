#pragma once
// TraceAssembly: what a trace reader (Kineto JSON, Nsight Systems SQLite) hands over, in the
// store's vocabulary, and the one place that turns it into a run glueprof's analyzers read.
//
// A reader adds host lanes (process, thread), stream lanes (device, stream), events with their
// CUPTI correlation ids, and synchronization records as the source tool saw them. finish() then
// does what both formats need alike (docs/import.md):
//   - steps: ranges named `<stepPrefix><N>` become steps N (ProfilerStep#N by default); a trace
//     without them is one step over all its events;
//   - step tags: host events by the step window [start, end) they start in (any thread), device
//     work by the step of its launch (the runtime call with the same correlation); a step marker
//     written as an op (older PyTorch) is a step range too;
//   - synchronizations: host-blocking ones (stream, event, context sync) are placed on the lane of
//     the runtime call that issued them (same correlation) as `sync` events; sync API calls
//     (cudaStreamSynchronize, ...) without a sync record in the trace become syncs over the call
//     (older PyTorch wrote none); a stream wait event is a marker on its stream;
//   - blocking copies: a device-to-host copy into pageable memory (or any copy by a synchronous
//     API: to the host, or from pageable memory to the device) adds a `blocking DtoH copy` /
//     `blocking HtoD copy` sync over its API call, as glueprof's own CUPTI capture does; a host
//     sync right after it on the same thread extends it, by the rule that capture uses too
//     (profiler/core/SyncPlacement.h);
//   - a host sync whose waited stream is known leaves a `host sync` marker on that stream (the
//     sync points analyzer looks for the awaited work there);
//   - ops: nested ones flagged nested; a top-level op with a host-blocking sync inside is a sync
//     point (would-sync; host read when the sync is a blocking device-to-host copy).
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "profiler/core/Diagnostics.h"
#include "profiler/core/Event.h"
#include "profiler/core/SyncAssembly.h"
#include "profiler/core/SyncPlacement.h"
#include "profiler/core/TextEncoding.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct ImportOptions {
    std::string stepPrefix = "ProfilerStep#";  // ranges named <prefix><N> are step N
    bool keepPythonFunctions = true;           // Kineto python_function events as ranges
    // How far the read of a Kineto JSON file is: the bytes of the file read so far and its size
    // (0: unknown), every 65,536 events and once when the read is through. Called on the thread
    // that reads the file; an exception it throws stops the read there (how an import that ended
    // early stops a read in flight). Empty: not told.
    std::function<void(std::uint64_t readBytes, std::uint64_t fileBytes)> readProgress;
    // Kineto JSON: a second thread reads spans of this many bytes of traceEvents ahead of the
    // parser (EventPrescan, docs/import.md §9); 0: the parser reads alone. What is read is the
    // same either way.
    std::size_t readAheadSpanBytes = 2u << 20;
};

// What a reader read, for the one line per run the import prints.
struct ImportedRun {
    std::string source;  // the file
    std::string format;  // "Kineto JSON" / "Nsight Systems SQLite"
    // e.g. "schemaVersion 1" / "export schema 3.24.14 (META_DATA_EXPORT)"
    std::string formatDetail;
    std::optional<int> rank;
    std::optional<int> worldSize;
    std::string devicesJson = "[]";  // the GPUs the trace names (deviceProperties, TARGET_INFO_GPU)
    std::int64_t startedUnixNs = 0;  // wall clock of the trace's start when the source says it
    bool stepsFound = false;         // false: the whole trace is one step
    std::map<std::string, std::int64_t> read;  // as the source names them: "cuda_sync" -> 41
    std::map<std::string, std::int64_t> eventsByKind;  // stored, by kind: "kernel" -> 79, ...
    std::map<std::string, std::int64_t> skipped;       // "what (why)" -> count
    std::map<std::string, std::int64_t> derived;       // "what (why)" -> count
    std::int64_t eventsReadAhead = 0;  // trace events a second thread read (EventPrescan)
    TraceModel model = TraceModelBuilder().build();
};

class TraceAssembly {
  public:
    explicit TraceAssembly(ImportOptions options = {});

    // Lanes by their natural keys; the same key gives the same lane.
    std::size_t hostLane(const std::string& process, std::int64_t thread);
    // `process`: set when one trace holds the streams of several processes (stream ids are per
    // process); "" otherwise.
    std::size_t streamLane(std::int64_t device, std::int64_t stream,
                           const std::string& process = "");
    void nameHostLane(const std::string& process, std::int64_t thread, const std::string& name);
    void nameProcess(const std::string& process, const std::string& name);

    StringId intern(std::string_view text);  // invalid UTF-8 is replaced by U+FFFD

    // An event on lanes()[lane]; its run, lane and name id are set here.
    Event& add(std::size_t lane, EventKind kind, Category category, std::string_view name,
               TimestampNs startNs, TimestampNs endNs);
    void addSync(const SyncRecord& sync);

    // Moves every event and sync record added so far by `delta` (a trace whose timestamps are
    // relative to a base time that its file names after the events).
    // False when a time overflows 64-bit nanoseconds (the trace is malformed).
    bool offsetTimes(TimestampNs delta);

    // The events are glueprof's own, exported and read back: their step tags, flags and sync
    // events are kept as written, steps are the `step` ranges, nothing is derived.
    void takeEventsAsRecorded() { m_asRecorded = true; }

    // What the source held, by its own names (Kineto's categories, Nsight's tables).
    void countRead(std::string_view what);

    // Counted into the run's diagnostics and the import line: an import's reason from the table
    // of diagnostics (Diagnostics.h), skipped or derived; `quoted` is the source's own text its
    // detail names (a category, a table).
    void count(DiagnosticId reason, std::int64_t n = 1);
    void count(DiagnosticId reason, std::string_view quoted, std::int64_t n = 1);

    std::size_t eventCount() const { return m_eventCount; }
    const ImportOptions& options() const { return m_options; }

    // How far the read of the source is (bytes of the file as it lies on disk, and its size):
    // each lane's events then grow toward what the whole file will hold (see reserveAhead).
    void readSoFar(std::uint64_t doneBytes, std::uint64_t totalBytes) {
        m_readDone = doneBytes;
        m_readTotal = totalBytes;
    }

    // Builds the run (see the top of this file). `run` carries label, device and identity.
    ImportedRun finish(RunSummary run) &&;

  private:
    struct HostKey {
        std::string process;
        std::int64_t thread;
        bool operator<(const HostKey& o) const {
            return process != o.process ? process < o.process : thread < o.thread;
        }
    };
    std::vector<StepInfo> assignSteps(bool& stepsFound);
    void placeSyncs();
    LinkedCalls linkCalls();
    std::vector<HostCall> callsOn(std::size_t lane) const;
    void flagOps();
    void reserveAhead(std::vector<Event>& events) const;
    static std::size_t recentSlotOf(std::string_view text);

    ImportOptions m_options;
    std::vector<Lane> m_lanes;
    std::vector<std::vector<Event>> m_events;
    std::vector<std::string> m_laneProcess;  // host lanes: the process key; "" for streams
    std::map<HostKey, std::size_t> m_hostLanes;
    std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::size_t> m_streamLanes;
    std::map<std::string, std::string> m_processNames;
    std::deque<std::string> m_keys;  // invalid UTF-8 names as given, viewed by m_stringIds
    std::unordered_map<std::string_view, StringId> m_stringIds;
    std::unordered_map<StringId, std::string> m_strings;
    // Names interned lately, by a cheap slot of their text: the key as m_stringIds holds it.
    struct RecentName {
        std::string_view key;
        StringId id = 0;
    };
    RecentName internSlow(std::string_view text);
    static constexpr std::size_t kRecentNames = 1024;
    std::array<RecentName, kRecentNames> m_recentNames{};
    std::vector<SyncRecord> m_syncs;
    std::map<std::string, std::int64_t> m_skipped;
    std::map<std::string, std::int64_t> m_derived;
    std::map<std::string, std::int64_t, std::less<>> m_read;  // found by string_view
    std::string m_lastRead;                                   // the text countRead was last given
    std::int64_t* m_lastReadCount = nullptr;                  // and its count in m_read
    std::size_t m_eventCount = 0;
    std::uint64_t m_readDone = 0;
    std::uint64_t m_readTotal = 0;
    bool m_asRecorded = false;
};

}  // namespace glueprof
