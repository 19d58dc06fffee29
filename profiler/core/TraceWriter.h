#pragma once
// TraceWriter: takes events from any thread, each into its own buffer, into a queue that a
// background thread (at a lower priority) drains into SQLite with prepared, batched inserts. A
// recording thread never waits on SQLite (beginRun does, for the write lock); every drain is one
// transaction, and a step record first moves every thread's buffered events into the queue and then
// wakes the drain, so a run killed at any moment keeps every step whose record was written, with
// all the events recorded before it.
//
// Any number of writers, in any number of processes, may write one file at once. Every id is
// SQLite's own, allocated inside the transaction that inserts the row: a run's when beginRun
// returns (its row is committed then), a name's and a lane's when the batch that first uses them is
// written. Until then a name or lane has a writer-local id, which the batch maps to the stored one.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "profiler/core/Event.h"
#include "profiler/core/RunIdentity.h"
#include "profiler/core/WriterDirectoryLock.h"

namespace glueprof {

class SqliteDb;

enum class RunStatus { kRunning, kComplete, kFailed, kAborted };
const char* toString(RunStatus status);

struct RunInfo {
    std::string label;
    std::string preset;
    std::string device;
    std::string configJson = "{}";
    std::string togglesJson = "[]";
    std::string environmentJson = "{}";
    std::string host;
    RunIdentity identity;  // kind, A/B group and arm, toggle, schedule
};

struct StepRecord {
    RunId run = 0;
    StepInfo info;
};

struct CounterRecord {
    RunId run = 0;
    std::int32_t step = 0;
    std::string name;
    std::int64_t value = 0;
};

struct DiagnosticRecord {
    RunId run = 0;
    std::string name;
    std::int64_t value = 0;
    std::string detail;
};

struct WriterOptions {
    std::size_t maxQueuedEvents = 8u << 20;  // beyond this, events are dropped and counted
    int drainIntervalMs = 20;                // the longest an event waits before a commit
    // The writer thread's nice value (0 = the process's own priority). Above 0 it yields the cores
    // to the training it records, and catches up in their idle time (TraceWriter::drainLoop).
    // GLUEPROF_WRITER_NICE=N (0 to 19) sets it for every writer of the process.
    int writerNice = defaultWriterNice();
    static int defaultWriterNice();
};

struct WriterStats {
    std::int64_t eventsWritten = 0;
    std::int64_t eventsDropped = 0;
    std::int64_t transactions = 0;
    std::int64_t writeCpuNs = 0;  // CPU time the writer thread spent writing batches
};

class TraceWriter {
  public:
    // Creates the database, or opens one to append to; a schema v1 file is upgraded in place first
    // (upgradeNotice() says so and names the backup).
    explicit TraceWriter(const std::string& path, WriterOptions options = {});
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    // RunInfo::identity.abGroup = kStartsAbGroup: the run starts an A/B group named by its own id.
    static constexpr RunId kStartsAbGroup = -1;
    // Stores the run's row (status running) and returns its id. Waits for the write lock.
    RunId beginRun(const RunInfo& info);
    void endRun(RunId run, RunStatus status);

    // Thread-safe; the same text gives the same id. Ids of intern and addLane are this writer's
    // own: they go into the events this writer records, never into another writer or a reader.
    StringId intern(std::string_view text);
    LaneId addLane(RunId run, LaneKind kind, const std::string& name, std::int64_t device,
                   std::int64_t threadOrStream);

    // Any thread; never blocks on SQLite. The event goes into the calling thread's own buffer (no
    // shared lock, no allocation per event), which joins the writer's queue when full, at every
    // step's end (recordStep), at endRun, flush and close, and at each of the writer's rounds.
    void record(const Event& event);
    // The calling thread's buffer in this writer (made on first use; it lives as long as the
    // writer), for a caller that records many events from one thread and keeps the buffer at hand
    // (the op observer, per op) instead of looking it up per event; record(buffer, event) then
    // does what record(event) does. Only the thread that got the buffer records into it.
    class ThreadBuffer;
    ThreadBuffer& bufferForThisThread();
    void record(ThreadBuffer& buffer, const Event& event);
    void recordStep(const StepRecord& step);
    void recordCounter(CounterRecord counter);
    void recordDiagnostic(DiagnosticRecord diagnostic);

    // Blocks until everything queued before the call is committed. Rethrows a writer failure.
    void flush();
    // Flushes, stops the background thread and closes the database. Idempotent.
    void close();
    // Closes after a failure: the runs this writer began and did not end are marked failed, and
    // the database file (with its -wal and -shm) is removed when this writer created it, it holds
    // no run but this writer's runs that did not end complete, it has one name (no symlink, no
    // other hard link), and no other writer has a database of its directory open (the exclusive
    // WriterDirectoryLock). Returns whether the file was removed. Never throws.
    bool abandon();

    WriterStats stats() const;
    const std::string& path() const { return m_path; }
    // One line when opening upgraded the file's schema (and where the old file was kept), else "".
    const std::string& upgradeNotice() const { return m_upgradeNotice; }

  private:
    struct RunStatusRow {
        RunId id;
        RunStatus status;
        std::int64_t endedUnixNs;
    };
    struct StringRow {
        StringId id;
        std::string value;
    };
    struct LaneRow {
        LaneId id;
        RunId run;
        LaneKind kind;
        std::string name;
        std::int64_t device;
        std::int64_t threadOrStream;
    };
    struct Batch {
        std::vector<StringRow> strings;
        std::vector<LaneRow> lanes;
        // Events in the order recorded per thread: whole thread buffers, handed over without a
        // copy (the writer gives each back to m_freeChunks once it is written).
        std::vector<std::vector<Event>> eventChunks;
        std::size_t eventCount = 0;
        std::vector<StepRecord> steps;
        std::vector<CounterRecord> counters;
        std::vector<DiagnosticRecord> diagnostics;
        std::vector<RunStatusRow> statuses;  // last: a run is complete only after its rows
        bool empty() const;
        void clear();
    };
    class Statements;
    static constexpr std::size_t kThreadBufferEvents = 1024;

    // Hands EVENTS (a thread's buffer) to the queue as one chunk and leaves an empty buffer of
    // kThreadBufferEvents capacity in its place; what does not fit under maxQueuedEvents is
    // dropped and counted. The caller holds m_queueMutex.
    void enqueueEvents(std::vector<Event>& events);
    // The written chunks of `batch`, emptied, back to m_freeChunks (up to kMaxFreeChunks).
    void recycleChunks(Batch& batch);
    static constexpr std::size_t kMaxFreeChunks = 256;
    void collectThreadBuffers();

    void drainLoop();
    void writeBatch(Batch& batch);
    // The stored id of a writer-local string or lane id (the drain thread, inside a batch).
    void storeStrings(const std::vector<StringRow>& rows);
    void storeLanes(const std::vector<LaneRow>& rows);
    void rethrowWriterFailure();
    // openTraceForWriting; a file it created and could not make a trace of is removed again.
    std::unique_ptr<SqliteDb> openDatabase();

    std::string m_path;
    std::string m_upgradeNotice;
    WriterOptions m_options;
    WriterDirectoryLock m_directoryLock;  // before the database opens, after it closes
    bool m_createdFile = false;           // the file had no tables when this writer opened it
    // The connection: the drain thread's batches and beginRun's insert take turns on it.
    std::mutex m_dbMutex;
    std::unique_ptr<SqliteDb> m_db;
    std::unique_ptr<Statements> m_statements;

    std::mutex m_internMutex;
    std::unordered_map<std::string, StringId> m_strings;  // text -> writer-local id
    StringId m_nextString = 1;
    std::atomic<LaneId> m_nextLane{1};  // writer-local
    // Writer-local id -> stored id (0: not stored yet); the drain thread's only.
    std::vector<StringId> m_storedStrings{0};
    std::vector<LaneId> m_storedLanes{0};
    // The events key's tie-breaker. A lane belongs to one writer, so counting from 1 in each is
    // unique per (run, lane, start); used by the drain thread only.
    std::int64_t m_nextEventSeq = 1;
    std::mutex m_runsMutex;
    std::vector<RunId> m_openRuns;   // begun and not ended, for abandon()
    std::vector<RunId> m_begunRuns;  // every run this writer began, for abandon()

    const std::uint64_t m_instance;  // tells apart writers that reuse an address
    std::mutex m_buffersMutex;
    std::vector<std::unique_ptr<ThreadBuffer>> m_buffers;

    mutable std::mutex m_queueMutex;
    std::condition_variable m_wakeDrain;
    std::condition_variable m_drained;
    Batch m_pending;
    std::vector<std::vector<Event>> m_freeChunks;  // empty buffers, each kThreadBufferEvents big
    std::uint64_t m_requestedGeneration = 0;
    std::uint64_t m_committedGeneration = 0;
    bool m_stopping = false;
    bool m_urgent = false;
    std::exception_ptr m_failure;
    WriterStats m_stats;
    std::unordered_map<RunId, std::int64_t> m_droppedByRun;

    std::thread m_thread;
    bool m_closed = false;
    bool m_catchingUp = false;  // the drain thread only: at nice 0 until the backlog is gone
};

}  // namespace glueprof
