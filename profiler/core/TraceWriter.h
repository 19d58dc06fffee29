#pragma once
// TraceWriter: the live recorder. It takes events from any thread, each into its own buffer, into a
// queue that a background thread (at a lower priority) drains into a RecordSink — a TraceStore, the
// SQLite file — one batch at a time. A recording thread never waits on the sink (beginRun does);
// every drain is one batch, and a step record first moves every thread's buffered events into the
// queue and then wakes the drain, so a run killed at any moment keeps every step whose record was
// written, with all the events recorded before it. The writer knows nothing of SQLite: what it
// hands over is StoreBatch (RecordSink.h).
//
// Names and lanes get writer-local ids (intern, addLane), which the sink maps to the stored ones.
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
#include "profiler/core/RecordSink.h"

namespace glueprof {

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
    // Records into the trace database at `path` (a TraceStore: created, or opened to append to; a
    // schema v1 file is upgraded in place first, and upgradeNotice() says so).
    explicit TraceWriter(const std::string& path, WriterOptions options = {});
    // Records into `sink`.
    explicit TraceWriter(std::unique_ptr<RecordSink> sink, WriterOptions options = {});
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    // Stores the run's row (status running) and returns its id. Waits for the sink (the write
    // lock).
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
    // Closes after a failure: what is queued is written where it can be, then the sink abandons
    // (RecordSink::abandon: runs not ended marked failed, a file this writer created that holds
    // nothing complete removed). Returns whether the file was removed. Never throws.
    bool abandon();

    WriterStats stats() const;
    const std::string& path() const { return m_sink->path(); }
    // One line when opening upgraded the file's schema (and where the old file was kept), else "".
    const std::string& upgradeNotice() const { return m_sink->upgradeNotice(); }

  private:
    using Batch = StoreBatch;
    static constexpr std::size_t kThreadBufferEvents = 1024;

    // Hands EVENTS (a thread's buffer) to the queue as one chunk and leaves an empty buffer of
    // kThreadBufferEvents capacity in its place; what does not fit under maxQueuedEvents is
    // dropped and counted. The caller holds m_queueMutex.
    void enqueueEvents(std::vector<Event>& events);
    // The written chunks of `batch`, emptied, back to m_freeChunks (up to kMaxFreeChunks).
    void recycleChunks(Batch& batch);
    static constexpr std::size_t kMaxFreeChunks = 256;
    void collectThreadBuffers();
    // The run's dropped-events count, when it has one, as a diagnostic in the queue (m_queueMutex
    // held).
    void queueDropCount(RunId run);

    void drainLoop();
    void writeBatch(Batch& batch);
    void rethrowWriterFailure();
    // Stops the drain thread once the queue is written (or the sink failed). Idempotent.
    void stopDrain();

    WriterOptions m_options;
    // The sink: the drain thread's batches and beginRun take turns on it.
    std::mutex m_sinkMutex;
    std::unique_ptr<RecordSink> m_sink;
    bool m_sinkClosed = false;

    std::mutex m_internMutex;
    std::unordered_map<std::string, StringId> m_strings;  // text -> writer-local id
    StringId m_nextString = 1;
    std::atomic<LaneId> m_nextLane{1};  // writer-local
    const std::uint64_t m_instance;     // tells apart writers that reuse an address
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
