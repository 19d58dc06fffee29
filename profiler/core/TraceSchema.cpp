#include "profiler/core/TraceSchema.h"

#include <sys/stat.h>

#include "profiler/core/WriterDirectoryLock.h"

#include <fmt/format.h>

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include "profiler/core/Error.h"
#include "profiler/core/OpenedDatabases.h"
#include "profiler/core/OutputPath.h"

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
  ended_unix_ns INTEGER,
  kind TEXT NOT NULL DEFAULT 'trained' CHECK (kind IN ('trained','simulated','imported')),
  ab_group INTEGER,
  arm TEXT CHECK (arm IN ('baseline','optimized','A','B')),
  toggle TEXT,
  schedule TEXT,
  rank INTEGER,
  world_size INTEGER
);
CREATE INDEX IF NOT EXISTS runs_by_ab_group ON runs (ab_group);
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

// Ids are SQLite's own (rowids allocated inside the inserting transaction), so any number of
// writers, in any number of processes, can add runs, names and lanes to one file.
const char* const kInsertRun =
    "INSERT INTO runs (label, status, preset, device, config_json, toggles_json, "
    "environment_json, host, started_unix_ns, kind, ab_group, arm, toggle, schedule, rank, "
    "world_size) VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
    "?15)";
const char* const kSetRunOwnAbGroup = "UPDATE runs SET ab_group = id WHERE id = ?1";
const char* const kUpdateRunStatus =
    "UPDATE runs SET status = ?2, ended_unix_ns = ?3 WHERE id = ?1";
const char* const kInsertString =
    "INSERT INTO strings (value) VALUES (?1) ON CONFLICT (value) DO NOTHING";
const char* const kSelectStringId = "SELECT id FROM strings WHERE value = ?1";
const char* const kInsertLane =
    "INSERT INTO lanes (run_id, kind, name, device, thread_or_stream) VALUES (?1, ?2, ?3, ?4, ?5)";
#define GLUEPROF_EVENT_COLUMNS                                                              \
    "run_id, lane_id, kind, category, name_id, start_ns, end_ns, step, layer, microbatch, " \
    "correlation, bytes, src_kind, dst_kind, flags, seq"
#define GLUEPROF_EVENT_BATCH_TABLE "glueprof_event_batch"
const char* const kEventBatchTable = GLUEPROF_EVENT_BATCH_TABLE;
const char* const kDeclareEventBatchTable = "CREATE TABLE x(" GLUEPROF_EVENT_COLUMNS ")";
const char* const kInsertEventsFromBatch =
    "INSERT INTO events (" GLUEPROF_EVENT_COLUMNS ") SELECT " GLUEPROF_EVENT_COLUMNS
    " FROM " GLUEPROF_EVENT_BATCH_TABLE;
#undef GLUEPROF_EVENT_BATCH_TABLE
#undef GLUEPROF_EVENT_COLUMNS
const char* const kInsertStep =
    "INSERT OR REPLACE INTO steps (run_id, step, start_ns, end_ns, warmup, block, loss, tokens) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
const char* const kInsertCounter =
    "INSERT OR REPLACE INTO counters (run_id, step, name, value) VALUES (?1, ?2, ?3, ?4)";
const char* const kInsertDiagnostic =
    "INSERT INTO diagnostics (run_id, name, value, detail) VALUES (?1, ?2, ?3, ?4)";

// v1 kept a run's identity in conventions: the label TOGGLE:baseline / TOGGLE:optimized (the
// optimized arm paired with the newest baseline of its toggle before it), a simulated run's device
// 'simulated', a pipeline's schedule in its config JSON. This view derives v2's columns from them;
// it is the only place that reads those conventions, used by the upgrade (kUpgradeV1) and by
// readers of a v1 file opened read-only.
const char* const kCreateV1IdentityView = R"SQL(
CREATE TEMP VIEW IF NOT EXISTS v1_run_identity AS
WITH arms AS (
  SELECT id, label,
         CASE WHEN label LIKE '%_:baseline' THEN 'baseline'
              WHEN label LIKE '%_:optimized' THEN 'optimized' END AS arm,
         CASE WHEN label LIKE '%_:baseline' THEN substr(label, 1, length(label) - 9)
              WHEN label LIKE '%_:optimized' THEN substr(label, 1, length(label) - 10) END AS toggle,
         CASE WHEN device = 'simulated' THEN 'simulated' ELSE 'trained' END AS kind,
         CASE WHEN json_valid(config_json) THEN json_extract(config_json, '$.schedule') END
           AS schedule
  FROM main.runs)
SELECT a.id, a.kind, a.arm, a.toggle, a.schedule,
       CASE a.arm WHEN 'baseline' THEN a.id
                  WHEN 'optimized' THEN (SELECT max(b.id) FROM arms b WHERE b.arm = 'baseline'
                                          AND b.toggle = a.toggle AND b.id < a.id) END AS ab_group
FROM arms a;
)SQL";

const char* const kUpgradeV1 = R"SQL(
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'trained'
  CHECK (kind IN ('trained','simulated','imported'));
ALTER TABLE runs ADD COLUMN ab_group INTEGER;
ALTER TABLE runs ADD COLUMN arm TEXT CHECK (arm IN ('baseline','optimized','A','B'));
ALTER TABLE runs ADD COLUMN toggle TEXT;
ALTER TABLE runs ADD COLUMN schedule TEXT;
ALTER TABLE runs ADD COLUMN rank INTEGER;
ALTER TABLE runs ADD COLUMN world_size INTEGER;
UPDATE runs SET (kind, ab_group, arm, toggle, schedule) =
  (SELECT v.kind, v.ab_group, v.arm, v.toggle, v.schedule FROM v1_run_identity v
   WHERE v.id = runs.id);
CREATE INDEX IF NOT EXISTS runs_by_ab_group ON runs (ab_group);
DROP TABLE IF EXISTS metrics;
)SQL";

namespace {
constexpr const char* kRunColumns =
    "SELECT r.id, r.label, r.status, r.preset, r.device, r.config_json, r.toggles_json, "
    "r.environment_json, r.host, r.started_unix_ns, coalesce(r.ended_unix_ns, 0), "
    "(SELECT count(*) FROM steps s WHERE s.run_id = r.id), ";
}  // namespace

std::string selectRuns(int schemaVersion, const std::string& where) {
    const std::string identity =
        schemaVersion == 1
            ? "i.kind, i.ab_group, i.arm, i.toggle, i.schedule, NULL, NULL FROM runs r "
              "JOIN v1_run_identity i ON i.id = r.id"
            : "r.kind, r.ab_group, r.arm, r.toggle, r.schedule, r.rank, r.world_size FROM runs r";
    return kRunColumns + identity + (where.empty() ? "" : " WHERE " + where) + " ORDER BY r.id";
}

const char* const kSelectStrings = "SELECT id, value FROM strings";
const char* const kSelectLanes =
    "SELECT id, kind, name, device, thread_or_stream FROM lanes WHERE run_id = ?1 ORDER BY id";
const char* const kSelectEvents =
    "SELECT lane_id, kind, category, name_id, start_ns, end_ns, step, layer, microbatch, "
    "correlation, bytes, src_kind, dst_kind, flags FROM events WHERE run_id = ?1 "
    "ORDER BY lane_id, start_ns, seq";
const char* const kSelectSteps =
    "SELECT step, start_ns, end_ns, warmup, block, loss, tokens FROM steps WHERE run_id = ?1";
const char* const kSelectCounters =
    "SELECT step, name, value FROM counters WHERE run_id = ?1 ORDER BY step, name";
// A capture writes a name's count in several rows as it goes (so a killed run keeps them): summed.
// One name may also stand for several things, each with its own detail (an import's skips).
const char* const kSelectDiagnostics =
    "SELECT name, SUM(value), detail FROM diagnostics WHERE run_id = ?1 GROUP BY name, detail "
    "ORDER BY MIN(id)";

}  // namespace sql

namespace {

// SQLite's primary result code of reading the schema version; the version when it is SQLITE_OK.
int tryReadUserVersion(SqliteDb& db, int* version) {
    sqlite3_stmt* statement = nullptr;
    int rc = sqlite3_prepare_v2(db.handle(), "PRAGMA user_version", -1, &statement, nullptr);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(statement);
        if (rc == SQLITE_ROW) {
            *version = sqlite3_column_int(statement, 0);
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(statement);
    return rc & 0xFF;
}

bool cannotOpenWal(int rc) { return rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY; }

// A damaged file, WHAT being what found it ("SQLite: database disk image is malformed"), and the
// fix.
std::string damagedDatabaseMessage(const std::string& path, const std::string& what) {
    return fmt::format(
        "'{}' is damaged ({}): it may be truncated or edited; restore it from a copy or "
        "re-record it",
        path, what);
}

std::string notWritableMessage(const std::string& path) {
    return fmt::format(
        "trace database '{}' is not writable; fix its permissions or pass another --db", path);
}

// What SQLite said, as the problem and its fix.
std::string unreadableDatabaseMessage(SqliteDb& db, int rc) {
    const char* said = sqlite3_errmsg(db.handle());
    if (rc == SQLITE_NOTADB) {
        return fmt::format(
            "'{}' is not an SQLite database; pass a glueprof trace or a new path with --db",
            db.path());
    }
    if (rc == SQLITE_CORRUPT)
        return damagedDatabaseMessage(db.path(), fmt::format("SQLite: {}", said));
    if (cannotOpenWal(rc)) {
        const bool writableDirectory = directoryPermitsWriting(db.path());
        return fmt::format(
            "cannot read '{}': SQLite cannot open its write-ahead log ('-wal' and '-shm' files "
            "beside it) (SQLite: {}); {}",
            db.path(), said,
            writableDirectory ? "check that those two files are yours to read and write, or "
                                "copy the database elsewhere"
                              : "make its directory writable or copy the database to a "
                                "writable one");
    }
    return fmt::format(
        "cannot read '{}' (SQLite error {}: {}); check the file or pass another --db", db.path(),
        rc, said);
}

// Reads the schema version, turning SQLite's failure into a message that says what to do.
int readUserVersion(SqliteDb& db) {
    int version = 0;
    const int rc = tryReadUserVersion(db, &version);
    if (rc != SQLITE_OK) throw inputError(unreadableDatabaseMessage(db, rc));
    return version;
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
        fmt::format("'{}' holds trace schema v{}, this build reads v1 to v{}: re-record it "
                    "with this build or open it with a matching glueprof",
                    db.path(), version, kTraceSchemaVersion));
}

}  // namespace

int traceSchemaVersion(SqliteDb& db) { return readUserVersion(db); }

namespace {

// The first of FILE.v1.bak, FILE.v1-2.bak, ... that does not exist.
std::string backupPathFor(const std::string& path) {
    std::error_code ec;
    std::string candidate = path + ".v1.bak";
    for (int n = 2; std::filesystem::exists(candidate, ec); ++n) {
        candidate = fmt::format("{}.v1-{}.bak", path, n);
    }
    return candidate;
}

// Upgrades a v1 trace in place: a complete copy first (VACUUM INTO, so the backup is a consistent
// database even with a WAL), then the new columns filled from v1's conventions in one transaction.
// Returns the notice for the user, or "" when another process upgraded the file meanwhile.
std::string upgradeFromV1(SqliteDb& db, const std::string& path) {
    std::string backup;
    for (int attempt = 0;; ++attempt) {
        backup = backupPathFor(path);
        try {
            SqliteStatement vacuum = db.prepare("VACUUM INTO ?1");
            vacuum.bind(1, backup);
            vacuum.step();
            break;
        } catch (const GlueprofError& e) {
            // Another writer upgrading the same file may have taken this name meanwhile: take the
            // next one. Any other failure (a read-only directory, a full disk) is the user's to
            // fix.
            std::error_code ec;
            if (attempt < 3 && std::filesystem::exists(backup, ec)) continue;
            throw inputError(fmt::format(
                "'{}' holds trace schema v1 and is upgraded to v{} before writing, but its backup "
                "'{}' could not be written ({}); make the directory writable or record into a copy",
                path, kTraceSchemaVersion, backup, e.what()));
        }
    }
    db.exec("BEGIN IMMEDIATE");
    // Two writers may open one v1 file at once: the one that takes the write lock second finds it
    // upgraded, drops its own backup and says nothing.
    if (readUserVersion(db) != 1) {
        db.exec("ROLLBACK");
        std::error_code ec;
        std::filesystem::remove(backup, ec);
        return "";
    }
    try {
        db.exec(sql::kCreateV1IdentityView);
        db.exec(sql::kUpgradeV1);
        db.exec("DROP VIEW temp.v1_run_identity");
        db.exec(fmt::format("PRAGMA user_version={}", kTraceSchemaVersion));
        db.exec("COMMIT");
    } catch (...) {
        db.exec("ROLLBACK");
        throw;
    }
    return fmt::format(
        "upgraded '{}' from trace schema v1 to v{} in place; the v1 file is kept as '{}'", path,
        kTraceSchemaVersion, backup);
}

}  // namespace

namespace {
constexpr int kWriterBusyTimeoutMs = 60000;
}  // namespace

namespace {

// A damaged file (bytes overwritten, a torn copy) is refused before anything is written to it: an
// index that no longer matches its table makes a writer's inserts fail half way (a string the
// damaged index cannot find is inserted twice), with the file already changed. Every table but
// `events` is checked (quick_check of one table and its indexes): they are small, so the check
// costs the same on a file of any size, and they hold what the writer reads at open and inserts by
// key. `events` is not checked whole: it is the bulk of the file, and SQLite 3.40 (Debian 12's)
// reports false "NULL value in events.kind" findings on that WITHOUT ROWID table. Its right edge is
// read instead, root to last leaf: a new run's events go there (the key starts with the run), so a
// damaged page on that path fails the read here rather than an insert after the run has begun.
void refuseDamaged(SqliteDb& db, const std::string& path) {
    std::vector<std::string> tables;
    bool hasEvents = false;
    SqliteStatement list =
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    while (list.step()) {
        std::string table = list.columnText(0);
        if (table == "events") {
            hasEvents = true;
        } else {
            tables.push_back(std::move(table));
        }
    }
    for (const std::string& table : tables) {
        SqliteStatement check = db.prepare(fmt::format("PRAGMA quick_check(\"{}\")", table));
        std::string finding = check.step() ? check.columnText(0) : std::string("no answer");
        if (finding == "ok") continue;
        // Page-level findings come as "*** in database main ***\nOn tree page 4 ...\n...": the
        // first one says enough.
        const std::string banner = "*** in database main ***\n";
        if (finding.rfind(banner, 0) == 0) finding.erase(0, banner.size());
        finding = finding.substr(0, finding.find('\n'));
        throw inputError(damagedDatabaseMessage(
            path, fmt::format("SQLite quick_check of table {}: {}", table, finding)));
    }
    if (hasEvents) {
        db.queryInt(
            "SELECT count(*) FROM (SELECT run_id FROM events ORDER BY run_id DESC LIMIT 1)");
    }
}

// Switches the file to write-ahead logging. On a new file the switch takes the write lock from
// inside a read transaction, where SQLite does not call the busy handler (waiting there could
// deadlock): a second writer creating the same file at the same moment, holding that lock for its
// own switch or its tables, makes the switch fail at once with SQLITE_BUSY. The switch is retried
// until the writer's busy timeout instead, so two processes creating one database both write to it.
void enterWriteAheadLogMode(SqliteDb& db) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kWriterBusyTimeoutMs);
    for (;;) {
        const int rc =
            sqlite3_exec(db.handle(), "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
        if (rc == SQLITE_OK) return;
        if ((rc & 0xFF) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) {
            throwSqliteError(db.handle(), rc);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

struct FileState {
    int version = 0;
    bool empty = true;  // no tables yet: a new file, or one another writer is creating now
};

// What every writer refuses before it writes, on an open connection: a foreign or newer file
// first (not ours to check), then damage. Version and tables are read in one snapshot: a writer
// creating the file commits both at once, and two separate reads could see its version still 0
// and then its tables (a new file taken for a foreign one).
FileState refuseWhatNoWriterTakes(SqliteDb& db, const std::string& path) {
    db.exec("BEGIN");
    FileState file;
    file.version = readUserVersion(db);  // not SQLite, or a damaged header: refused here
    file.empty = db.queryInt("SELECT count(*) FROM sqlite_master") == 0;
    db.exec("COMMIT");
    if (!(file.version == 0 && file.empty) && file.version != 1)
        refuseForeignVersion(db, file.version);
    if (!file.empty) refuseDamaged(db, path);
    return file;
}

}  // namespace

std::unique_ptr<SqliteDb> openTraceForWriting(const std::string& path, std::string* upgradeNotice,
                                              bool* createdSchema) {
    requireParentDirectory(path, "create trace database", "--db");
    auto db = std::make_unique<SqliteDb>(path, OpenMode::kReadWriteCreate);
    // Writers of other processes hold the write lock one batch at a time (an import's largest is
    // about a second): a writer waits its turn rather than fail.
    sqlite3_busy_timeout(db->handle(), kWriterBusyTimeoutMs);
    if (sqlite3_db_readonly(db->handle(), "main") == 1) throw inputError(notWritableMessage(path));
    const FileState file = refuseWhatNoWriterTakes(*db, path);
    const int version = file.version;
    const bool empty = file.empty;
    if (version == 1) {
        const std::string notice = upgradeFromV1(*db, path);
        if (upgradeNotice != nullptr) *upgradeNotice = notice;
    }
    // A new file gets 16 KiB pages (fewer page splits per event than the default 4 KiB; an
    // existing file keeps its own): part of the ingest rate measured by bench/StoreIngestBench.
    if (empty) db->exec(fmt::format("PRAGMA page_size={}", kNewTracePageBytes));
    enterWriteAheadLogMode(*db);
    db->exec("PRAGMA synchronous=NORMAL");
    // Fewer, larger WAL checkpoints (one per 64 MiB of WAL) and a 64 MiB page cache.
    const std::int64_t pageBytes = db->queryInt("PRAGMA page_size");
    db->exec(fmt::format("PRAGMA wal_autocheckpoint={}",
                         (64 << 20) / std::max<std::int64_t>(pageBytes, 512)));
    db->exec("PRAGMA cache_size=-65536");
    bool created = false;
    if (empty) {
        // IMMEDIATE: the write lock first, so two writers creating one file take turns: the
        // second finds the tables there, creates nothing and does not count as the file's creator.
        db->exec("BEGIN IMMEDIATE");
        created = db->queryInt("SELECT count(*) FROM sqlite_master") == 0;
        if (created) {
            db->exec(sql::kCreateSchema);
            db->exec(fmt::format("PRAGMA user_version={}", kTraceSchemaVersion));
        }
        db->exec("COMMIT");
    }
    if (createdSchema != nullptr) *createdSchema = created;
    return db;
}

void createTraceDatabase(const std::string& path) { openTraceForWriting(path); }

void requireTraceDatabaseTakesRuns(const std::string& path) {
    requireParentDirectory(path, "create trace database", "--db");
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return;
    requireRegularFileOrNone(path, "trace database", "pass a file path with --db");
    // SQLite writes the file and, in WAL mode, the -wal and -shm files beside it.
    if (::access(path.c_str(), W_OK) != 0 || !directoryPermitsWriting(path))
        throw inputError(notWritableMessage(path));
    // The writer's own refusals; an empty file, or one another writer is creating right now, passes
    // as openTraceForWriting takes it.
    SqliteDb db(path, OpenMode::kReadWrite);  // queries only: nothing is written here
    sqlite3_busy_timeout(db.handle(), kWriterBusyTimeoutMs);
    refuseWhatNoWriterTakes(db, path);
}

bool removeCreatedDatabase(const std::string& path, WriterDirectoryLock& lock,
                           const std::function<bool()>& holdsNothing) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) return false;
    if (!lock.tryExclusive()) return false;
    try {
        if (!holdsNothing()) return false;
    } catch (...) {  // NOTE(writer): a file that cannot be judged is left as it is
        return false;
    }
    removeTraceDatabase(path);
    return true;
}

void removeTraceDatabase(const std::string& path) {
    forgetRemovedDatabase(path);  // before the file goes: its identity is read from it
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
}

namespace {

// True when PATH has no -wal file with content beside it and its directory is not writable: then
// no process can be writing PATH in WAL mode (a writer creates the -wal there), and every committed
// transaction is in the file itself.
bool noLiveWriteAheadLog(const std::string& path) {
    std::error_code ec;
    const std::string wal = path + "-wal";
    if (std::filesystem::exists(wal, ec) && std::filesystem::file_size(wal, ec) > 0) return false;
    return !directoryPermitsWriting(path);
}

}  // namespace

std::unique_ptr<SqliteDb> openTraceForReading(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw inputError(fmt::format(
            "trace database '{}' is a directory; pass the trace file inside it with --db", path));
    }
    if (!std::filesystem::exists(path, ec)) {
        throw inputError(
            fmt::format("trace database '{}' does not exist; record one with "
                        "`glueprof ab` or pass an existing --db",
                        path));
    }
    requireRegularFileOrNone(path, "trace database", "pass a file path with --db");
    // Where it may, a reader opens read-write and then allows itself queries only: closing as the
    // last connection, it then removes the -wal and -shm files SQLite keeps beside a database in
    // WAL mode, which a read-only connection leaves behind.
    const bool writable = ::access(path.c_str(), W_OK) == 0 && directoryPermitsWriting(path);
    auto db =
        std::make_unique<SqliteDb>(path, writable ? OpenMode::kReadWrite : OpenMode::kReadOnly);
    int version = 0;
    const int rc = tryReadUserVersion(*db, &version);
    if (cannotOpenWal(rc) && noLiveWriteAheadLog(path)) {
        // A read-only directory where SQLite cannot create the -shm file, and no -wal with
        // committed data beside the file: no writer can be running, so the file is read as is.
        db = std::make_unique<SqliteDb>(path, OpenMode::kReadOnlyImmutable);
        version = readUserVersion(*db);
    } else if (rc != SQLITE_OK) {
        throw inputError(unreadableDatabaseMessage(*db, rc));
    }
    if (version == 1) {
        // Read as it is (nothing written): v2's run columns come from v1's conventions.
        db->exec(sql::kCreateV1IdentityView);
    } else {
        refuseForeignVersion(*db, version);
    }
    db->exec("PRAGMA query_only=1");
    return db;
}

}  // namespace glueprof
