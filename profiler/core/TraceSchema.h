#pragma once
// The trace store's schema: every table, view, index and statement lives in TraceSchema.cpp.
// docs/schema.md documents each column and unit.
#include <memory>
#include <string>

#include "profiler/core/Sqlite.h"

namespace glueprof {

constexpr int kTraceSchemaVersion = 1;

namespace sql {
extern const char* const kCreateSchema;
extern const char* const kInsertRun;
extern const char* const kUpdateRunStatus;
extern const char* const kInsertString;
extern const char* const kInsertLane;
// INSERT of `rows` events, 16 parameters per row in column order (see kEventColumns in the .cpp).
std::string insertEvents(int rows);
constexpr int kEventColumns = 16;
extern const char* const kInsertStep;
extern const char* const kInsertCounter;
extern const char* const kInsertDiagnostic;
extern const char* const kInsertMetric;
}  // namespace sql

// Opens (creating when absent) a trace database for writing: WAL, schema v1.
// Throws GlueprofError(kInput) for a file that is not SQLite, an SQLite file that is not a
// glueprof trace, or a trace of another schema version.
std::unique_ptr<SqliteDb> openTraceForWriting(const std::string& path);

// Opens an existing trace database read-only, with the same refusals.
std::unique_ptr<SqliteDb> openTraceForReading(const std::string& path);

}  // namespace glueprof
