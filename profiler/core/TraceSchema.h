#pragma once
// The trace store's schema: every table, view, index and statement lives in TraceSchema.cpp.
// docs/schema.md documents each column and unit.
#include <functional>
#include <memory>
#include <string>

#include "profiler/core/Sqlite.h"

namespace glueprof {

class WriterDirectoryLock;

// v2 (this build) adds the run identity columns and drops the unread `metrics` table; a v1 file
// is read as it is and upgraded in place (with a backup) when opened for writing.
constexpr int kTraceSchemaVersion = 2;

namespace sql {
extern const char* const kCreateSchema;
extern const char* const kInsertRun;
extern const char* const kSetRunOwnAbGroup;  // ?1 run: the run starts an A/B group of its own id
extern const char* const kUpdateRunStatus;
extern const char* const kInsertString;    // ?1 value; nothing when another writer stored it first
extern const char* const kSelectStringId;  // ?1 value
extern const char* const kInsertLane;
// Events go in through the writer's virtual table (EventBatchTable): its name, its declaration
// (the events table's columns, in order) and the INSERT that copies it into `events`.
extern const char* const kEventBatchTable;
extern const char* const kDeclareEventBatchTable;
extern const char* const kInsertEventsFromBatch;
constexpr int kEventColumns = 16;
extern const char* const kInsertStep;
extern const char* const kInsertCounter;
extern const char* const kInsertDiagnostic;

// Readers: every SELECT of the store.
extern const char* const kSelectStrings;      // id, value
extern const char* const kSelectLanes;        // ?1 run: id, kind, name, device, thread_or_stream
extern const char* const kSelectEvents;       // ?1 run: lane_id ... flags (TraceReader's order)
extern const char* const kSelectSteps;        // ?1 run
extern const char* const kSelectCounters;     // ?1 run
extern const char* const kSelectDiagnostics;  // ?1 run: name, summed value, detail
// The runs (RunSummary's columns, identity last), in id order; `where` filters on `r.` columns.
// A v1 file's identity columns come from kCreateV1IdentityView.
std::string selectRuns(int schemaVersion, const std::string& where = "");

// v1 -> v2.
extern const char* const kCreateV1IdentityView;
extern const char* const kUpgradeV1;
}  // namespace sql

// Opens (creating when absent) a trace database for writing: WAL, schema v2. A v1 trace is first
// copied to FILE.v1.bak and upgraded in place; `upgradeNotice` then receives a line saying so.
// Throws GlueprofError(kInput) for a file that is not SQLite, an SQLite file that is not a
// glueprof trace, or a trace of another schema version.
// `createdSchema` receives whether the file was new (no tables: this call created them).
// A path that exists and is not a regular file (a device, a FIFO) is refused.
std::unique_ptr<SqliteDb> openTraceForWriting(const std::string& path,
                                              std::string* upgradeNotice = nullptr,
                                              bool* createdSchema = nullptr);

// Opens an existing trace database read-only, with the same refusals; a v1 trace is read as it
// is (nothing is written to it).
std::unique_ptr<SqliteDb> openTraceForReading(const std::string& path);

// Creates an empty trace database (schema v2) at `path`, where no file is (the GUI's new database).
void createTraceDatabase(const std::string& path);

// Refuses, before work whose runs would then be lost, a --db that could not take them: a path
// whose directory is missing or not writable, or an existing file that is not a glueprof trace,
// is damaged, of another schema version, or not writable. A path where no file is, an empty
// file, or one another writer is creating at this moment passes (nothing is created).
void requireTraceDatabaseTakesRuns(const std::string& path);

// Removes the database file at `path` and the -wal and -shm files SQLite keeps beside it; best
// effort (what is not there, or cannot go, is left).
void removeTraceDatabase(const std::string& path);

// Removes a database its caller created, with its -wal and -shm, when nothing else can be writing
// it: it has one name (no symlink or second hard link, whose other directory's writers `lock`
// cannot see), `lock` (the caller's shared lock on its directory) turns exclusive — no other
// writer, in any process, has a database of that directory open — and then `holdsNothing()` says
// what it holds is not worth keeping. Returns whether it was removed; never throws (a file whose
// contents cannot be judged is left). TraceWriter::abandon, a writer whose open failed, and
// `profile`'s new database use it.
bool removeCreatedDatabase(const std::string& path, WriterDirectoryLock& lock,
                           const std::function<bool()>& holdsNothing);

// The page size of a trace database glueprof creates (an existing file keeps its own).
inline constexpr int kNewTracePageBytes = 16384;

// PRAGMA user_version of an open trace.
int traceSchemaVersion(SqliteDb& db);

}  // namespace glueprof
