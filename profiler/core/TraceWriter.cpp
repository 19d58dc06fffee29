#include "profiler/core/TraceWriter.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <utility>

#include "profiler/core/Error.h"
#include "profiler/core/EventBatchTable.h"
#include "profiler/core/LossDiagnostics.h"
#include "profiler/core/SpinLock.h"
#include "profiler/core/Sqlite.h"
#include "profiler/core/TraceSchema.h"

namespace glueprof {

// A recording thread's events between hand-offs to the queue. Its lock is taken by its own thread
// per event and by collectThreadBuffers: uncontended but for the moment of a hand-off.
class TraceWriter::ThreadBuffer {
  public:
    SpinLock lock;
    std::vector<Event> events;
};

const char* toString(RunStatus status) {
    switch (status) {
        case RunStatus::kRunning:
            return "running";
        case RunStatus::kComplete:
            return "complete";
        case RunStatus::kFailed:
            return "failed";
        case RunStatus::kAborted:
            return "aborted";
    }
    return "unknown";
}

namespace {
std::atomic<std::uint64_t> g_nextWriterInstance{1};

std::int64_t unixNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}
}  // namespace

// The prepared statements, compiled once and reused by every batch.
class TraceWriter::Statements {
  public:
    explicit Statements(SqliteDb& db)
        : run(db.prepare(sql::kInsertRun)),
          ownAbGroup(db.prepare(sql::kSetRunOwnAbGroup)),
          status(db.prepare(sql::kUpdateRunStatus)),
          string(db.prepare(sql::kInsertString)),
          stringId(db.prepare(sql::kSelectStringId)),
          lane(db.prepare(sql::kInsertLane)),
          eventBatch(db.handle()),
          insertEvents(db.prepare(sql::kInsertEventsFromBatch)),
          step(db.prepare(sql::kInsertStep)),
          counter(db.prepare(sql::kInsertCounter)),
          diagnostic(db.prepare(sql::kInsertDiagnostic)) {}
    SqliteStatement run, ownAbGroup, status, string, stringId, lane;
    EventBatchTable eventBatch;  // a batch's events, read by insertEvents in one statement
    SqliteStatement insertEvents;
    SqliteStatement step, counter, diagnostic;
};

namespace {
// kind, ab_group, arm, toggle, schedule, rank, world_size from parameter `first` on; NULL where a
// run has none (no A/B group, no arm, no toggle, no schedule, no rank).
void bindIdentity(SqliteStatement& st, int first, const RunIdentity& id) {
    st.bind(first, std::string(toString(id.kind)));
    auto textOrNull = [&st](int index, const std::string& text) {
        text.empty() ? st.bindNull(index) : st.bind(index, text);
    };
    auto intOrNull = [&st](int index, std::optional<std::int64_t> value) {
        value ? st.bind(index, *value) : st.bindNull(index);
    };
    intOrNull(first + 1, id.abGroup != 0 ? std::optional<std::int64_t>(id.abGroup) : std::nullopt);
    textOrNull(first + 2, toString(id.arm));
    textOrNull(first + 3, id.toggle);
    textOrNull(first + 4, id.schedule);
    intOrNull(first + 5, id.rank);
    intOrNull(first + 6, id.worldSize);
}

}  // namespace

bool TraceWriter::Batch::empty() const {
    return strings.empty() && lanes.empty() && eventChunks.empty() && steps.empty() &&
           counters.empty() && diagnostics.empty() && statuses.empty();
}

void TraceWriter::Batch::clear() {
    strings.clear();
    lanes.clear();
    eventChunks.clear();
    eventCount = 0;
    steps.clear();
    counters.clear();
    diagnostics.clear();
    statuses.clear();
}

std::unique_ptr<SqliteDb> TraceWriter::openDatabase() {
    std::error_code ec;
    const bool existed = std::filesystem::exists(m_path, ec);
    try {
        return openTraceForWriting(m_path, &m_upgradeNotice, &m_createdFile);
    } catch (...) {
        // A file this open created and could not make a trace of (the disk filled as the schema
        // was written) goes again, under the exclusive lock (no other writer has a database of
        // this directory open), when it holds no table: none in it, or too little of it to hold
        // one (one page, no write-ahead log).
        if (!existed) {
            removeCreatedDatabase(m_path, m_directoryLock, [this] {
                try {
                    SqliteDb db(m_path, OpenMode::kReadOnly);
                    return db.queryInt("SELECT count(*) FROM sqlite_master") == 0;
                } catch (...) {
                    std::error_code error;
                    const auto size = std::filesystem::file_size(m_path, error);
                    const auto log = std::filesystem::file_size(m_path + "-wal", error);
                    return size <= static_cast<std::uintmax_t>(kNewTracePageBytes) &&
                           (log == static_cast<std::uintmax_t>(-1) || log == 0);
                }
            });
        }
        throw;
    }
}

TraceWriter::TraceWriter(const std::string& path, WriterOptions options)
    : m_path(path),
      m_options(options),
      m_directoryLock(path),
      m_db(openDatabase()),
      m_instance(g_nextWriterInstance.fetch_add(1)) {
    m_statements = std::make_unique<Statements>(*m_db);
    m_thread = std::thread([this] { drainLoop(); });
}

TraceWriter::~TraceWriter() {
    try {
        close();
    } catch (...) {
        // NOTE(writer): a destructor cannot report; callers that care call close() themselves.
    }
}

namespace {
// Undoes an open transaction when a statement in it throws (the error is the one to report).
void rollbackQuietly(SqliteDb& db) {
    sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}
}  // namespace

RunId TraceWriter::beginRun(const RunInfo& info) {
    RunInfo stored = info;
    const bool startsGroup = stored.identity.abGroup == kStartsAbGroup;
    if (startsGroup) stored.identity.abGroup = 0;
    RunId id = 0;
    {
        std::lock_guard<std::mutex> lock(m_dbMutex);
        if (!m_db) throw std::logic_error("TraceWriter::beginRun after close");
        Statements& s = *m_statements;
        m_db->exec("BEGIN IMMEDIATE");
        try {
            s.run.bind(1, stored.label);
            s.run.bind(2, stored.preset);
            s.run.bind(3, stored.device);
            s.run.bind(4, stored.configJson);
            s.run.bind(5, stored.togglesJson);
            s.run.bind(6, stored.environmentJson);
            s.run.bind(7, stored.host);
            s.run.bind(8, unixNowNs());
            bindIdentity(s.run, 9, stored.identity);
            s.run.step();
            s.run.reset();
            id = sqlite3_last_insert_rowid(m_db->handle());
            if (startsGroup) {
                s.ownAbGroup.bind(1, id);
                s.ownAbGroup.step();
                s.ownAbGroup.reset();
            }
            m_db->exec("COMMIT");
        } catch (...) {
            s.run.reset();
            s.ownAbGroup.reset();
            rollbackQuietly(*m_db);
            throw;
        }
    }
    std::lock_guard<std::mutex> lock(m_runsMutex);
    m_openRuns.push_back(id);
    m_begunRuns.push_back(id);
    return id;
}

void TraceWriter::endRun(RunId run, RunStatus status) {
    {
        std::lock_guard<std::mutex> lock(m_runsMutex);
        m_openRuns.erase(std::remove(m_openRuns.begin(), m_openRuns.end(), run), m_openRuns.end());
    }
    collectThreadBuffers();  // the run's events before its status (and its drop count)
    std::lock_guard<std::mutex> lock(m_queueMutex);
    auto dropped = m_droppedByRun.find(run);
    if (dropped != m_droppedByRun.end()) {
        m_pending.diagnostics.push_back(
            DiagnosticRecord{run, loss::kWriterDroppedEvents, dropped->second,
                             "the writer queue was full; raise WriterOptions::maxQueuedEvents"});
        m_droppedByRun.erase(dropped);
    }
    m_pending.statuses.push_back(RunStatusRow{run, status, unixNowNs()});
    m_urgent = true;
    m_wakeDrain.notify_one();
}

StringId TraceWriter::intern(std::string_view text) {
    std::lock_guard<std::mutex> lock(m_internMutex);
    auto [it, inserted] = m_strings.try_emplace(std::string(text), m_nextString);
    if (inserted) {
        ++m_nextString;
        std::lock_guard<std::mutex> queueLock(m_queueMutex);
        m_pending.strings.push_back(StringRow{it->second, it->first});
    }
    return it->second;
}

LaneId TraceWriter::addLane(RunId run, LaneKind kind, const std::string& name, std::int64_t device,
                            std::int64_t threadOrStream) {
    LaneId id = m_nextLane++;
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_pending.lanes.push_back(LaneRow{id, run, kind, name, device, threadOrStream});
    return id;
}

namespace {

struct ThreadBufferSlot {
    std::uint64_t writer = 0;
    void* buffer = nullptr;
};
// The calling thread's buffer in each writer it recorded into. A writer's instance number is never
// reused, so the slot of a writer that is gone never matches again. Plain arrays: a thread_local
// with a constructor is reached through a TLS wrapper call at every use, and record() is per op.
constexpr std::size_t kThreadBufferSlots = 64;
thread_local ThreadBufferSlot t_buffers[kThreadBufferSlots];
thread_local std::size_t t_bufferCount = 0;

}  // namespace

TraceWriter::ThreadBuffer& TraceWriter::bufferForThisThread() {
    for (std::size_t i = t_bufferCount; i-- > 0;) {
        if (t_buffers[i].writer == m_instance)
            return *static_cast<ThreadBuffer*>(t_buffers[i].buffer);
    }
    if (t_bufferCount == kThreadBufferSlots) {
        // Slots of writers long closed: forget the older half (a live writer whose slot goes
        // only gets a second buffer for this thread, which it collects like the first).
        constexpr std::size_t kKept = kThreadBufferSlots / 2;
        std::copy(t_buffers + kKept, t_buffers + kThreadBufferSlots, t_buffers);
        t_bufferCount = kKept;
    }
    auto buffer = std::make_unique<ThreadBuffer>();
    buffer->events.reserve(kThreadBufferEvents);
    ThreadBuffer* raw = buffer.get();
    {
        std::lock_guard<std::mutex> lock(m_buffersMutex);
        m_buffers.push_back(std::move(buffer));
    }
    t_buffers[t_bufferCount++] = ThreadBufferSlot{m_instance, raw};
    return *raw;
}

void TraceWriter::enqueueEvents(std::vector<Event>& events) {
    const std::size_t room = m_options.maxQueuedEvents > m_pending.eventCount
                                 ? m_options.maxQueuedEvents - m_pending.eventCount
                                 : 0;
    if (events.size() > room) {
        for (std::size_t i = room; i < events.size(); ++i) {
            ++m_stats.eventsDropped;
            ++m_droppedByRun[events[i].run];
        }
        events.resize(room);
    }
    if (events.empty()) return;
    m_pending.eventCount += events.size();
    // A nearly empty buffer (a step's end, a writer round) is copied into the queue's last chunk
    // instead of handed over whole, so queued memory stays proportional to the queued events.
    std::vector<Event>* tail =
        m_pending.eventChunks.empty() ? nullptr : &m_pending.eventChunks.back();
    if (events.size() < kThreadBufferEvents / 8 && tail != nullptr &&
        tail->capacity() - tail->size() >= events.size()) {
        tail->insert(tail->end(), events.begin(), events.end());
        events.clear();
        return;
    }
    m_pending.eventChunks.push_back(std::move(events));
    if (m_freeChunks.empty()) {
        events = std::vector<Event>();
        events.reserve(kThreadBufferEvents);
    } else {
        events = std::move(m_freeChunks.back());
        m_freeChunks.pop_back();
    }
}

void TraceWriter::recycleChunks(Batch& batch) {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    for (std::vector<Event>& chunk : batch.eventChunks) {
        if (m_freeChunks.size() >= kMaxFreeChunks) break;  // the rest is freed with the batch
        if (chunk.capacity() < kThreadBufferEvents) continue;
        chunk.clear();
        m_freeChunks.push_back(std::move(chunk));
    }
}

void TraceWriter::collectThreadBuffers() {
    // A recording thread waits on its buffer's lock only while its vector is exchanged for an empty
    // one: nothing is copied.
    std::lock_guard<std::mutex> buffersLock(m_buffersMutex);
    for (const std::unique_ptr<ThreadBuffer>& buffer : m_buffers) {
        // The queue's mutex first, then the buffer's spin lock (as record() takes them).
        std::lock_guard<std::mutex> queueLock(m_queueMutex);
        std::lock_guard<SpinLock> bufferLock(buffer->lock);
        if (!buffer->events.empty()) enqueueEvents(buffer->events);
    }
}

void TraceWriter::record(const Event& event) { record(bufferForThisThread(), event); }

void TraceWriter::record(ThreadBuffer& buffer, const Event& event) {
    {
        std::lock_guard<SpinLock> lock(buffer.lock);
        buffer.events.push_back(event);
        if (buffer.events.size() < kThreadBufferEvents) return;
    }
    // Full: queued under the queue's mutex and then the buffer's lock, the order every collector
    // takes them in. No one holds a spin lock while waiting for the mutex, and the events stay in
    // the buffer, where a collector finds them, until they are queued: a step row, a run's end or
    // a flush never overtakes events recorded before it.
    std::lock_guard<std::mutex> queueLock(m_queueMutex);
    std::lock_guard<SpinLock> lock(buffer.lock);
    if (!buffer.events.empty()) enqueueEvents(buffer.events);
}

void TraceWriter::recordStep(const StepRecord& step) {
    // Every event recorded so far, on any thread, joins the queue before the step's row: a step
    // with a row is complete.
    collectThreadBuffers();
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_pending.steps.push_back(step);
    m_urgent = true;  // commit at every step boundary
    m_wakeDrain.notify_one();
}

void TraceWriter::recordCounter(CounterRecord counter) {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_pending.counters.push_back(std::move(counter));
}

void TraceWriter::recordDiagnostic(DiagnosticRecord diagnostic) {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_pending.diagnostics.push_back(std::move(diagnostic));
}

void TraceWriter::flush() {
    collectThreadBuffers();
    std::unique_lock<std::mutex> lock(m_queueMutex);
    if (m_closed) return;
    std::uint64_t wanted = ++m_requestedGeneration;
    m_urgent = true;
    m_wakeDrain.notify_one();
    m_drained.wait(lock, [&] { return m_committedGeneration >= wanted || m_failure; });
    lock.unlock();
    rethrowWriterFailure();
}

void TraceWriter::close() {
    collectThreadBuffers();
    {
        std::lock_guard<std::mutex> lock(m_queueMutex);
        if (m_closed) return;
        m_closed = true;
        m_stopping = true;
        m_wakeDrain.notify_one();
    }
    if (m_thread.joinable()) m_thread.join();
    std::lock_guard<std::mutex> dbLock(m_dbMutex);
    m_statements.reset();
    // Best effort, without waiting: a reader's open snapshot must not hold this writer's close, and
    // with it every other writer's batches, for the busy timeout.
    if (m_db) sqlite3_busy_timeout(m_db->handle(), 0);
    // Move what the WAL holds into the main file and empty it, so the database file alone is
    // complete whenever no writer runs (a copy of runs.sqlite is a whole database). Best effort:
    // a reader still holding a snapshot leaves part of it for the next writer's close.
    if (m_db)
        sqlite3_wal_checkpoint_v2(m_db->handle(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr,
                                  nullptr);
    m_db.reset();
    rethrowWriterFailure();
}

bool TraceWriter::abandon() {
    std::vector<RunId> open;
    std::vector<RunId> begun;
    {
        std::lock_guard<std::mutex> lock(m_runsMutex);
        open = m_openRuns;
        begun = m_begunRuns;
    }
    try {
        for (RunId run : open) endRun(run, RunStatus::kFailed);
        close();
    } catch (...) {  // NOTE(writer): the failure that made the caller abandon is the one to report
    }
    // Once the lock is exclusive no other writer has a database of this directory open, nor can
    // open one until it goes: what the file holds now is all it will ever hold. It goes when every
    // run in it is one this writer began and did not store complete: a run ended complete whose
    // status never reached the file (the disk filled as it was written) is unfinished too.
    const bool removed =
        m_createdFile && removeCreatedDatabase(m_path, m_directoryLock, [&] {
            SqliteDb db(m_path, OpenMode::kReadWrite);  // reads only; the last to close
            SqliteStatement runs = db.prepare("SELECT id, status FROM runs");
            while (runs.step()) {
                const bool ours =
                    std::find(begun.begin(), begun.end(), runs.columnInt(0)) != begun.end();
                if (!ours || runs.columnText(1) == "complete") return false;
            }
            return true;
        });
    m_directoryLock.release();
    return removed;
}

WriterStats TraceWriter::stats() const {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    return m_stats;
}

void TraceWriter::rethrowWriterFailure() {
    std::lock_guard<std::mutex> lock(m_queueMutex);
    if (m_failure) std::rethrow_exception(m_failure);
}

int WriterOptions::defaultWriterNice() {
    constexpr int kDefault = 19;
    const char* text = std::getenv("GLUEPROF_WRITER_NICE");
    if (text == nullptr || *text == '\0') return kDefault;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    return *end == '\0' && value >= 0 && value <= 19 ? static_cast<int>(value) : kDefault;
}

void TraceWriter::drainLoop() {
    if (m_options.writerNice > 0) {
        // The recorded work comes first: on a machine with few cores the writer's SQLite time would
        // otherwise be taken from the training it records (a step's compute threads all wait for
        // the one the writer displaced). At a higher nice value it runs mostly in the cores' idle
        // time, and still gets a share under load; behind, it catches up at nice 0 (below). The
        // default, 19: on 2 cores the tiny preset's traced step took 33-40 ms with the writer at
        // nice 5 and 21-27 ms at 19, in one process (bench: BM_StepTinyTracingOn*).
        ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), m_options.writerNice);
    }
    Batch batch;
    for (;;) {
        std::uint64_t generation = 0;
        bool stopping = false;
        {
            std::unique_lock<std::mutex> lock(m_queueMutex);
            m_wakeDrain.wait_for(lock, std::chrono::milliseconds(m_options.drainIntervalMs),
                                 [&] { return m_urgent || m_stopping; });
        }
        collectThreadBuffers();  // what threads recorded since: no event waits for a full buffer
        {
            std::unique_lock<std::mutex> lock(m_queueMutex);
            std::swap(batch, m_pending);
            m_urgent = false;
            generation = m_requestedGeneration;
            stopping = m_stopping;
        }
        // Far behind (an eighth of the drop limit queued): the writer takes its full share of the
        // cores until it catches up, rather than letting the queue grow toward that limit. Where
        // the system permits raising the priority again (root, or RLIMIT_NICE); else it stays at
        // its nice value and a run that outpaces it counts its drops (writer_dropped_events).
        if (m_options.writerNice > 0) {
            const bool behind = batch.eventCount > m_options.maxQueuedEvents / 8;
            if (behind != m_catchingUp) {
                m_catchingUp = behind;
                ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)),
                              behind ? 0 : m_options.writerNice);
            }
        }
        try {
            if (!batch.empty()) writeBatch(batch);
        } catch (...) {
            std::lock_guard<std::mutex> lock(m_queueMutex);
            m_failure = std::current_exception();
            m_drained.notify_all();
            return;
        }
        recycleChunks(batch);
        batch.clear();
        {
            std::lock_guard<std::mutex> lock(m_queueMutex);
            m_committedGeneration = generation;
        }
        m_drained.notify_all();
        if (stopping) {
            std::lock_guard<std::mutex> lock(m_queueMutex);
            if (m_pending.empty()) return;  // otherwise one more round for late arrivals
        }
    }
}

namespace {
std::int64_t threadCpuNs() {
    timespec now{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}
}  // namespace

void TraceWriter::storeStrings(const std::vector<StringRow>& rows) {
    Statements& s = *m_statements;
    for (const StringRow& row : rows) {
        s.string.bind(1, row.value);
        s.string.step();
        s.string.reset();
        s.stringId.bind(1, row.value);
        const StringId stored = s.stringId.step() ? s.stringId.columnInt(0) : 0;
        s.stringId.reset();
        if (m_storedStrings.size() <= static_cast<std::size_t>(row.id))
            m_storedStrings.resize(static_cast<std::size_t>(row.id) + 1, 0);
        m_storedStrings[static_cast<std::size_t>(row.id)] = stored;
    }
}

void TraceWriter::storeLanes(const std::vector<LaneRow>& rows) {
    Statements& s = *m_statements;
    for (const LaneRow& row : rows) {
        s.lane.bind(1, row.run);
        s.lane.bind(2, static_cast<std::int64_t>(row.kind));
        s.lane.bind(3, row.name);
        s.lane.bind(4, row.device);
        s.lane.bind(5, row.threadOrStream);
        s.lane.step();
        s.lane.reset();
        if (m_storedLanes.size() <= static_cast<std::size_t>(row.id))
            m_storedLanes.resize(static_cast<std::size_t>(row.id) + 1, 0);
        m_storedLanes[static_cast<std::size_t>(row.id)] = sqlite3_last_insert_rowid(m_db->handle());
    }
}

void TraceWriter::writeBatch(Batch& batch) {
    const std::int64_t cpuAtStart = threadCpuNs();
    Statements& s = *m_statements;
    std::lock_guard<std::mutex> dbLock(m_dbMutex);
    // IMMEDIATE: the write lock before the first read, so a batch waits for another process's
    // batch instead of failing on a snapshot that batch made stale.
    m_db->exec("BEGIN IMMEDIATE");
    struct RollbackOnThrow {
        SqliteDb& db;
        bool committed = false;
        ~RollbackOnThrow() {
            if (!committed) rollbackQuietly(db);
        }
    } transaction{*m_db};
    storeStrings(batch.strings);
    storeLanes(batch.lanes);
    if (batch.eventCount > 0) {
        s.eventBatch.expose(batch.eventChunks.data(), batch.eventChunks.size(), m_nextEventSeq,
                            &m_storedLanes, &m_storedStrings);
        struct Unexpose {  // the table never points at a batch that is gone, even on a throw
            Statements& s;
            ~Unexpose() {
                s.eventBatch.clear();
                s.insertEvents.reset();
            }
        } unexpose{s};
        s.insertEvents.step();
        m_nextEventSeq += static_cast<std::int64_t>(batch.eventCount);
    }
    for (const StepRecord& row : batch.steps) {
        s.step.bind(1, row.run);
        s.step.bind(2, static_cast<std::int64_t>(row.info.step));
        s.step.bind(3, row.info.startNs);
        s.step.bind(4, row.info.endNs);
        s.step.bind(5, static_cast<std::int64_t>(row.info.warmup ? 1 : 0));
        s.step.bind(6, static_cast<std::int64_t>(row.info.block));
        s.step.bind(7, row.info.loss);
        s.step.bind(8, row.info.tokens);
        s.step.step();
        s.step.reset();
    }
    for (const CounterRecord& row : batch.counters) {
        s.counter.bind(1, row.run);
        s.counter.bind(2, static_cast<std::int64_t>(row.step));
        s.counter.bind(3, row.name);
        s.counter.bind(4, row.value);
        s.counter.step();
        s.counter.reset();
    }
    for (const DiagnosticRecord& row : batch.diagnostics) {
        s.diagnostic.bind(1, row.run);
        s.diagnostic.bind(2, row.name);
        s.diagnostic.bind(3, row.value);
        s.diagnostic.bind(4, row.detail);
        s.diagnostic.step();
        s.diagnostic.reset();
    }
    for (const RunStatusRow& row : batch.statuses) {
        s.status.bind(1, row.id);
        s.status.bind(2, std::string(toString(row.status)));
        s.status.bind(3, row.endedUnixNs);
        s.status.step();
        s.status.reset();
    }
    m_db->exec("COMMIT");
    transaction.committed = true;
    std::lock_guard<std::mutex> lock(m_queueMutex);
    m_stats.eventsWritten += static_cast<std::int64_t>(batch.eventCount);
    ++m_stats.transactions;
    m_stats.writeCpuNs += threadCpuNs() - cpuAtStart;
}

}  // namespace glueprof
