#include "profiler/core/TraceSchema.h"

#include <fmt/format.h>

#include <filesystem>

#include "profiler/core/Error.h"

namespace glueprof {
namespace sql {

// Enum values stored here are defined in profiler/core/Event.h and never renumbered.
const char* const kCreateSchema = R"SQL(
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running','complete','failed','aborted')),
  preset TEXT NOT NULL,
  device TEXT NOT NULL,
  config_json TEXT NOT NULL,
  toggles_json TEXT NOT NULL,
  environment_json TEXT NOT NULL,
  host TEXT NOT NULL,
  started_unix_ns INTEGER NOT NULL,
  ended_unix_ns INTEGER
);
CREATE TABLE IF NOT EXISTS strings (
  id INTEGER PRIMARY KEY,
  value TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS lanes (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  name TEXT NOT NULL,
  device INTEGER NOT NULL,
  thread_or_stream INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
  run_id INTEGER NOT NULL,
  lane_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  category INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  step INTEGER NOT NULL,
  layer INTEGER NOT NULL,
  microbatch INTEGER NOT NULL,
  correlation INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  src_kind INTEGER NOT NULL,
  dst_kind INTEGER NOT NULL,
  flags INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (run_id, lane_id, start_ns, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS steps (
  run_id INTEGER NOT NULL,
  step INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  warmup INTEGER NOT NULL,
  block INTEGER NOT NULL,
  loss REAL NOT NULL,
  tokens INTEGER NOT NULL,
  PRIMARY KEY (run_id, step)
);
CREATE TABLE IF NOT EXISTS counters (
  run_id INTEGER NOT NULL,
  step INTEGER NOT NULL,
  name TEXT NOT NULL,
  value INTEGER NOT NULL,
  PRIMARY KEY (run_id, step, name)
);
CREATE TABLE IF NOT EXISTS diagnostics (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  value INTEGER NOT NULL,
  detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS metrics (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  value REAL NOT NULL,
  unit TEXT NOT NULL,
  detail_json TEXT NOT NULL
);

-- Views shaped like the Nsight Systems SQLite export, so familiar SQL works on our traces.
-- They add runId because one glueprof database holds many runs.
CREATE VIEW IF NOT EXISTS StringIds AS SELECT id, value FROM strings;
CREATE VIEW IF NOT EXISTS CUPTI_ACTIVITY_KIND_KERNEL AS
  SELECT e.run_id AS runId, e.start_ns AS start, e.end_ns AS "end", l.device AS deviceId,
         l.thread_or_stream AS streamId, e.correlation AS correlationId,
         e.name_id AS shortName, e.name_id AS demangledName
  FROM events e JOIN lanes l ON l.id = e.lane_id WHERE e.kind = 2;
CREATE VIEW IF NOT EXISTS CUPTI_ACTIVITY_KIND_MEMCPY AS
  SELECT e.run_id AS runId, e.start_ns AS start, e.end_ns AS "end", l.device AS deviceId,
         l.thread_or_stream AS streamId, e.correlation AS correlationId, e.bytes AS bytes,
         CASE WHEN e.src_kind IN (1,2) AND e.dst_kind = 3 THEN 1
              WHEN e.src_kind = 3 AND e.dst_kind IN (1,2) THEN 2
              WHEN e.src_kind = 3 AND e.dst_kind = 3 THEN 8
              WHEN e.src_kind IN (1,2) AND e.dst_kind IN (1,2) THEN 9
              ELSE 0 END AS copyKind,
         e.src_kind AS srcKind, e.dst_kind AS dstKind
  FROM events e JOIN lanes l ON l.id = e.lane_id WHERE e.kind = 3;
CREATE VIEW IF NOT EXISTS CUPTI_ACTIVITY_KIND_SYNCHRONIZATION AS
  SELECT e.run_id AS runId, e.start_ns AS start, e.end_ns AS "end", l.device AS deviceId,
         l.thread_or_stream AS streamId, e.correlation AS correlationId, e.name_id AS nameId
  FROM events e JOIN lanes l ON l.id = e.lane_id WHERE e.kind = 5;
CREATE VIEW IF NOT EXISTS NVTX_EVENTS AS
  SELECT e.run_id AS runId, e.start_ns AS start, e.end_ns AS "end", 59 AS eventType,
         s.value AS text, e.name_id AS textId, l.thread_or_stream AS globalTid,
         e.category AS category
  FROM events e JOIN lanes l ON l.id = e.lane_id JOIN strings s ON s.id = e.name_id
  WHERE e.kind = 0;
)SQL";

const char* const kInsertRun =
    "INSERT INTO runs (id, label, status, preset, device, config_json, toggles_json, "
    "environment_json, host, started_unix_ns) VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7, ?8, "
    "?9)";
const char* const kUpdateRunStatus =
    "UPDATE runs SET status = ?2, ended_unix_ns = ?3 WHERE id = ?1";
const char* const kInsertString = "INSERT INTO strings (id, value) VALUES (?1, ?2)";
const char* const kInsertLane =
    "INSERT INTO lanes (id, run_id, kind, name, device, thread_or_stream) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
std::string insertEvents(int rows) {
    std::string statement =
        "INSERT INTO events (run_id, lane_id, kind, category, name_id, start_ns, end_ns, step, "
        "layer, microbatch, correlation, bytes, src_kind, dst_kind, flags, seq) VALUES ";
    for (int r = 0; r < rows; ++r) {
        statement += r == 0 ? "" : ",";
        statement += "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    }
    return statement;
}
const char* const kInsertStep =
    "INSERT OR REPLACE INTO steps (run_id, step, start_ns, end_ns, warmup, block, loss, tokens) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
const char* const kInsertCounter =
    "INSERT OR REPLACE INTO counters (run_id, step, name, value) VALUES (?1, ?2, ?3, ?4)";
const char* const kInsertDiagnostic =
    "INSERT INTO diagnostics (run_id, name, value, detail) VALUES (?1, ?2, ?3, ?4)";
const char* const kInsertMetric =
    "INSERT INTO metrics (run_id, name, value, unit, detail_json) VALUES (?1, ?2, ?3, ?4, ?5)";

}  // namespace sql

namespace {

// Reads the schema version, turning "not a database" into a message that says what to do.
int readUserVersion(SqliteDb& db) {
    try {
        return static_cast<int>(db.queryInt("PRAGMA user_version"));
    } catch (const GlueprofError&) {
        throw inputError(
            fmt::format("'{}' is not an SQLite database; pass a glueprof trace or a "
                        "new path with --db",
                        db.path()));
    }
}

void refuseForeignVersion(SqliteDb& db, int version) {
    if (version == kTraceSchemaVersion) return;
    if (version == 0) {
        throw inputError(
            fmt::format("'{}' is an SQLite database but not a glueprof trace (no schema "
                        "version); pass a glueprof trace or a new path with --db",
                        db.path()));
    }
    throw inputError(
        fmt::format("'{}' holds trace schema v{}, this build reads v{}: re-record it "
                    "with this build or open it with a matching glueprof",
                    db.path(), version, kTraceSchemaVersion));
}

}  // namespace

std::unique_ptr<SqliteDb> openTraceForWriting(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec)) {
        throw inputError(
            fmt::format("cannot create trace database '{}': directory '{}' does not "
                        "exist; create it or pass another --db",
                        path, parent.string()));
    }
    auto db = std::make_unique<SqliteDb>(path, OpenMode::kReadWriteCreate);
    if (sqlite3_db_readonly(db->handle(), "main") == 1) {
        throw inputError(
            fmt::format("trace database '{}' is not writable; fix its permissions or "
                        "pass another --db",
                        path));
    }
    int version = readUserVersion(*db);
    bool empty = db->queryInt("SELECT count(*) FROM sqlite_master") == 0;
    if (!(version == 0 && empty)) refuseForeignVersion(*db, version);
    db->exec("PRAGMA journal_mode=WAL");
    db->exec("PRAGMA synchronous=NORMAL");
    // Fewer, larger WAL checkpoints and a 64 MiB page cache: part of the ingest rate measured by
    // bench/StoreIngestBench (with blocked inserts, ~1.2M events/s on one writer thread).
    db->exec("PRAGMA wal_autocheckpoint=16384");
    db->exec("PRAGMA cache_size=-65536");
    if (empty) {
        db->exec("BEGIN");
        db->exec(sql::kCreateSchema);
        db->exec(fmt::format("PRAGMA user_version={}", kTraceSchemaVersion));
        db->exec("COMMIT");
    }
    return db;
}

std::unique_ptr<SqliteDb> openTraceForReading(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        throw inputError(
            fmt::format("trace database '{}' does not exist; record one with "
                        "`glueprof ab` or pass an existing --db",
                        path));
    }
    auto db = std::make_unique<SqliteDb>(path, OpenMode::kReadOnly);
    refuseForeignVersion(*db, readUserVersion(*db));
    return db;
}

}  // namespace glueprof
