#pragma once
// TraceStore: the one door into a trace database for writing. Every writer of runs goes through
// it: the live TraceWriter (whose drain thread hands it batches), and every bulk append — import,
// rank merge, RunCopy, ab --exec's arms, profile's end of a run — through RunAppend below.
//
// Any number of stores, in any number of processes, may write one file at once: each batch is one
// IMMEDIATE transaction, so the write lock is held for one batch at a time and another writer waits
// at most that long (docs/cli.md promises 60 s). Every id is SQLite's own, allocated inside the
// transaction that inserts the row: a run's when beginRun returns, a name's and a lane's when the
// batch that first uses them is written; until then they carry their producer's own id, which the
// store maps to the stored one (sequential producers may reuse ids: each batch that introduces an
// id maps it afresh; only one producer writes through a store at a time).
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiler/core/RecordSink.h"
#include "profiler/core/WriterDirectoryLock.h"

namespace glueprof {

class SqliteDb;

class TraceStore final : public RecordSink {
  public:
    // Creates the database, or opens one to append to; a schema v1 file is upgraded in place first
    // (upgradeNotice() says so and names the backup). A file this created and could not make a
    // trace of is removed again before the error is thrown.
    explicit TraceStore(const std::string& path);
    ~TraceStore() override;
    TraceStore(const TraceStore&) = delete;
    TraceStore& operator=(const TraceStore&) = delete;

    RunId beginRun(const RunInfo& info) override;
    void write(StoreBatch& batch) override;
    // Checkpoints the write-ahead log into the file (best effort, without waiting for readers) and
    // closes the database. Idempotent.
    void close() override;
    // The runs begun here and not ended are marked failed, the store closes, and the file (with its
    // -wal and -shm) is removed when this store created it, it holds no run but this store's runs
    // that did not end complete, it has one name (no symlink, no other hard link), and no other
    // writer has a database of its directory open (the exclusive WriterDirectoryLock).
    bool abandon() override;
    const std::string& path() const override { return m_path; }
    const std::string& upgradeNotice() const override { return m_upgradeNotice; }

  private:
    class Statements;
    std::unique_ptr<SqliteDb> openDatabase();
    void storeNames(const std::vector<StoreBatch::Name>& rows);
    void storeLanes(const std::vector<StoreBatch::LaneRow>& rows);

    std::string m_path;
    std::string m_upgradeNotice;
    WriterDirectoryLock m_directoryLock;  // before the database opens, after it closes
    bool m_createdFile = false;           // the file had no tables when this store opened it
    std::unique_ptr<SqliteDb> m_db;
    std::unique_ptr<Statements> m_statements;
    // The producer's id -> the stored one (0: not stored yet).
    std::vector<StringId> m_storedNames{0};
    std::vector<LaneId> m_storedLanes{0};
    // The events key's tie-breaker. A lane belongs to one producer, so counting from 1 in each
    // store is unique per (run, lane, start).
    std::int64_t m_nextEventSeq = 1;
    std::vector<RunId> m_openRuns;   // begun and not ended, for abandon()
    std::vector<RunId> m_begunRuns;  // every run this store began, for abandon()
};

// A whole run appended in bulk, streamed: rows gather into a batch that is written (one
// transaction, the write lock held only for it) whenever it holds batchEvents events, so memory
// stays bounded whatever the run's size; the run's status comes in the last batch (finish), so
// readers see it complete only at its end. Not thread-safe: one thread appends.
class RunAppend {
  public:
    static constexpr std::size_t kDefaultBatchEvents = 1u << 16;  // about 5 MB of events
    // Appends to `run` of `sink` (begun, by this process or another).
    RunAppend(RecordSink& sink, RunId run, std::size_t batchEvents = kDefaultBatchEvents);
    RunAppend(const RunAppend&) = delete;
    RunAppend& operator=(const RunAppend&) = delete;

    RunId run() const { return m_run; }
    StringId intern(std::string_view text);
    LaneId addLane(LaneKind kind, const std::string& name, std::int64_t device,
                   std::int64_t threadOrStream);
    // The event as given but for its run (this append's); its lane and name are ids of this append.
    void event(Event event);
    void step(const StepInfo& step);
    void counter(std::int32_t step, const std::string& name, std::int64_t value);
    void diagnostic(const std::string& name, std::int64_t value, const std::string& detail);
    // Writes what is gathered now (a merge that must hold a rank's rows before removing its file).
    void commit();
    // Writes the rest with the run's status last. Without a call the run keeps the status it had.
    void finish(RunStatus status);

    std::int64_t batchesWritten() const { return m_batches; }
    std::int64_t eventsWritten() const { return m_events; }

  private:
    RecordSink& m_sink;
    RunId m_run;
    std::size_t m_batchEvents;
    StoreBatch m_batch;
    std::unordered_map<std::string, StringId> m_names;
    StringId m_nextName = 1;
    LaneId m_nextLane = 1;
    std::int64_t m_batches = 0;
    std::int64_t m_events = 0;
};

}  // namespace glueprof
