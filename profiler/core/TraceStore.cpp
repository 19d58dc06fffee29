#include "profiler/core/TraceStore.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <utility>

#include "profiler/core/EventBatchTable.h"
#include "profiler/core/Sqlite.h"
#include "profiler/core/TraceSchema.h"

namespace glueprof {

// The prepared statements, compiled once and reused by every batch.
class TraceStore::Statements {
  public:
    explicit Statements(SqliteDb& db)
        : run(db.prepare(sql::kInsertRun)),
          ownAbGroup(db.prepare(sql::kSetRunOwnAbGroup)),
          status(db.prepare(sql::kUpdateRunStatus)),
          name(db.prepare(sql::kInsertString)),
          nameId(db.prepare(sql::kSelectStringId)),
          lane(db.prepare(sql::kInsertLane)),
          eventBatch(db.handle()),
          insertEvents(db.prepare(sql::kInsertEventsFromBatch)),
          step(db.prepare(sql::kInsertStep)),
          counter(db.prepare(sql::kInsertCounter)),
          diagnostic(db.prepare(sql::kInsertDiagnostic)) {}
    SqliteStatement run, ownAbGroup, status, name, nameId, lane;
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

// Runs `body` in one IMMEDIATE transaction (the write lock before the first read, so it waits for
// another process's batch instead of failing on a snapshot that batch made stale); rolled back
// when it throws (the error is the one to report).
template <typename Body>
void inTransaction(SqliteDb& db, Body&& body) {
    db.exec("BEGIN IMMEDIATE");
    try {
        body();
        db.exec("COMMIT");
    } catch (...) {
        sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

}  // namespace

std::unique_ptr<SqliteDb> TraceStore::openDatabase() {
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

TraceStore::TraceStore(const std::string& path)
    : m_path(path), m_directoryLock(path), m_db(openDatabase()) {
    m_statements = std::make_unique<Statements>(*m_db);
}

TraceStore::~TraceStore() {
    try {
        close();
    } catch (...) {  // NOTE(store): a destructor cannot report; callers that care call close()
    }
}

RunId TraceStore::beginRun(const RunInfo& info) {
    if (!m_db) throw std::logic_error("TraceStore::beginRun after close");
    RunInfo stored = info;
    const bool startsGroup = stored.identity.abGroup == kStartsAbGroup;
    if (startsGroup) stored.identity.abGroup = 0;
    Statements& s = *m_statements;
    RunId id = 0;
    try {
        inTransaction(*m_db, [&] {
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
        });
    } catch (...) {
        s.run.reset();
        s.ownAbGroup.reset();
        throw;
    }
    m_openRuns.push_back(id);
    m_begunRuns.push_back(id);
    return id;
}

void TraceStore::storeNames(const std::vector<StoreBatch::Name>& rows) {
    Statements& s = *m_statements;
    for (const StoreBatch::Name& row : rows) {
        s.name.bind(1, row.value);
        s.name.step();
        s.name.reset();
        s.nameId.bind(1, row.value);
        const StringId stored = s.nameId.step() ? s.nameId.columnInt(0) : 0;
        s.nameId.reset();
        if (m_storedNames.size() <= static_cast<std::size_t>(row.id))
            m_storedNames.resize(static_cast<std::size_t>(row.id) + 1, 0);
        m_storedNames[static_cast<std::size_t>(row.id)] = stored;
    }
}

void TraceStore::storeLanes(const std::vector<StoreBatch::LaneRow>& rows) {
    Statements& s = *m_statements;
    for (const StoreBatch::LaneRow& row : rows) {
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

void TraceStore::write(StoreBatch& batch) {
    if (!m_db) throw std::logic_error("TraceStore::write after close");
    if (batch.empty()) return;
    Statements& s = *m_statements;
    inTransaction(*m_db, [&] {
        storeNames(batch.names);
        storeLanes(batch.lanes);
        if (batch.eventCount > 0) {
            s.eventBatch.expose(batch.eventChunks.data(), batch.eventChunks.size(), m_nextEventSeq,
                                &m_storedLanes, &m_storedNames);
            struct Unexpose {  // the table never points at a batch that is gone, even on a throw
                Statements& s;
                ~Unexpose() {
                    s.eventBatch.clear();
                    s.insertEvents.reset();
                }
            } unexpose{s};
            s.insertEvents.step();
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
        for (const StoreBatch::Status& row : batch.statuses) {
            s.status.bind(1, row.run);
            s.status.bind(2, std::string(toString(row.status)));
            s.status.bind(3, row.endedUnixNs);
            s.status.step();
            s.status.reset();
        }
    });
    m_nextEventSeq += static_cast<std::int64_t>(batch.eventCount);
    for (const StoreBatch::Status& row : batch.statuses)
        m_openRuns.erase(std::remove(m_openRuns.begin(), m_openRuns.end(), row.run),
                         m_openRuns.end());
}

void TraceStore::close() {
    m_statements.reset();
    if (!m_db) return;
    // Best effort, without waiting: a reader's open snapshot must not hold this store's close, and
    // with it every other writer's batches, for the busy timeout.
    sqlite3_busy_timeout(m_db->handle(), 0);
    // Move what the WAL holds into the main file and empty it, so the database file alone is
    // complete whenever no writer runs (a copy of runs.sqlite is a whole database). Best effort:
    // a reader still holding a snapshot leaves part of it for the next writer's close.
    sqlite3_wal_checkpoint_v2(m_db->handle(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr,
                              nullptr);
    m_db.reset();
}

bool TraceStore::abandon() {
    try {
        if (m_db && !m_openRuns.empty()) {
            StoreBatch failed;
            for (RunId run : m_openRuns)
                failed.statuses.push_back({run, RunStatus::kFailed, unixNowNs()});
            write(failed);
        }
    } catch (...) {  // NOTE(store): the failure that made the caller abandon is the one to report
    }
    try {
        close();
    } catch (...) {  // NOTE(store): as above
    }
    // Once the lock is exclusive no other writer has a database of this directory open, nor can
    // open one until it goes: what the file holds now is all it will ever hold. It goes when every
    // run in it is one this store began and did not store complete: a run ended complete whose
    // status never reached the file (the disk filled as it was written) is unfinished too.
    bool removed = false;
    try {
        removed = m_createdFile && removeCreatedDatabase(m_path, m_directoryLock, [&] {
                      SqliteDb db(m_path, OpenMode::kReadWrite);  // reads only; the last to close
                      SqliteStatement runs = db.prepare("SELECT id, status FROM runs");
                      while (runs.step()) {
                          const bool ours = std::find(m_begunRuns.begin(), m_begunRuns.end(),
                                                      runs.columnInt(0)) != m_begunRuns.end();
                          if (!ours || runs.columnText(1) == "complete") return false;
                      }
                      return true;
                  });
    } catch (...) {  // NOTE(store): never throws; the file stays
    }
    m_directoryLock.release();
    return removed;
}

RunAppend::RunAppend(RecordSink& sink, RunId run, std::size_t batchEvents)
    : m_sink(sink), m_run(run), m_batchEvents(std::max<std::size_t>(batchEvents, 1)) {}

StringId RunAppend::intern(std::string_view text) {
    auto [it, inserted] = m_names.try_emplace(std::string(text), m_nextName);
    if (inserted) {
        ++m_nextName;
        m_batch.names.push_back(StoreBatch::Name{it->second, it->first});
    }
    return it->second;
}

LaneId RunAppend::addLane(LaneKind kind, const std::string& name, std::int64_t device,
                          std::int64_t threadOrStream) {
    const LaneId id = m_nextLane++;
    m_batch.lanes.push_back(StoreBatch::LaneRow{id, m_run, kind, name, device, threadOrStream});
    return id;
}

void RunAppend::event(Event event) {
    event.run = m_run;
    if (m_batch.eventChunks.empty()) {
        m_batch.eventChunks.emplace_back();
        m_batch.eventChunks.back().reserve(std::min<std::size_t>(m_batchEvents, 1u << 16));
    }
    m_batch.eventChunks.back().push_back(event);
    if (++m_batch.eventCount >= m_batchEvents) commit();
}

void RunAppend::step(const StepInfo& step) { m_batch.steps.push_back(StepRecord{m_run, step}); }

void RunAppend::counter(std::int32_t step, const std::string& name, std::int64_t value) {
    m_batch.counters.push_back(CounterRecord{m_run, step, name, value});
}

void RunAppend::diagnostic(const std::string& name, std::int64_t value, const std::string& detail) {
    m_batch.diagnostics.push_back(DiagnosticRecord{m_run, name, value, detail});
}

void RunAppend::commit() {
    if (m_batch.empty()) return;
    m_sink.write(m_batch);
    ++m_batches;
    m_events += static_cast<std::int64_t>(m_batch.eventCount);
    // The event chunk keeps its capacity for the next batch: memory stays one batch big.
    std::vector<std::vector<Event>> chunks = std::move(m_batch.eventChunks);
    m_batch.clear();
    if (!chunks.empty()) {
        chunks.resize(1);
        chunks.front().clear();
        m_batch.eventChunks = std::move(chunks);
    }
}

void RunAppend::finish(RunStatus status) {
    m_batch.statuses.push_back(StoreBatch::Status{m_run, status, unixNowNs()});
    commit();
}

}  // namespace glueprof
