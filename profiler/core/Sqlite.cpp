#include "profiler/core/Sqlite.h"

#include <fmt/format.h>

#include <utility>

#include "profiler/core/Error.h"
#include "profiler/core/OpenedDatabases.h"

namespace glueprof {

namespace {

// "trace database 'PATH': MESSAGE (SQLite error RC); FIX".
std::string sqliteErrorMessage(sqlite3* db, int rc, const std::string& message) {
    const char* file = db != nullptr ? sqlite3_db_filename(db, "main") : nullptr;
    const std::string where = file != nullptr && *file != '\0'
                                  ? fmt::format("trace database '{}'", file)
                                  : std::string("trace database");
    const int primary = rc & 0xFF;
    const char* fix =
        primary == SQLITE_FULL       ? "; free disk space or pass another --db"
        : primary == SQLITE_READONLY ? "; the database is read-only: pass another --db"
        : primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
            ? "; the file is damaged: restore or re-create it"
        : primary == SQLITE_BUSY || primary == SQLITE_LOCKED
            ? "; another process held its write lock too long: retry, or pass another --db"
        : primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN
            ? "; check the file, its directory and the disk, or pass another --db"
            : "";
    return fmt::format("{}: {} (SQLite error {}){}", where, message, rc, fix);
}

}  // namespace

void throwSqliteError(sqlite3* db, int rc) {
    const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    throw inputError(sqliteErrorMessage(db, rc, message));
}

SqliteStatement::SqliteStatement(sqlite3* db, const std::string& sql) : m_db(db) {
    GLUEPROF_SQLITE_CHECK(db, sqlite3_prepare_v2(db, sql.c_str(), -1, &m_stmt, nullptr));
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(m_stmt); }

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_db(other.m_db), m_stmt(std::exchange(other.m_stmt, nullptr)) {}

void SqliteStatement::bind(int index, std::int64_t value) {
    GLUEPROF_SQLITE_CHECK(m_db, sqlite3_bind_int64(m_stmt, index, value));
}
void SqliteStatement::bind(int index, double value) {
    GLUEPROF_SQLITE_CHECK(m_db, sqlite3_bind_double(m_stmt, index, value));
}
void SqliteStatement::bind(int index, const std::string& value) {
    GLUEPROF_SQLITE_CHECK(
        m_db, sqlite3_bind_text(m_stmt, index, value.data(), static_cast<int>(value.size()),
                                SQLITE_TRANSIENT));
}
void SqliteStatement::bindNull(int index) {
    GLUEPROF_SQLITE_CHECK(m_db, sqlite3_bind_null(m_stmt, index));
}

bool SqliteStatement::step() {
    int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throwSqliteError(m_db, rc);
}

void SqliteStatement::reset() {
    // Every caller rebinds every parameter, so the bindings are not cleared (it costs per row).
    sqlite3_reset(m_stmt);
}

std::int64_t SqliteStatement::columnInt(int index) const {
    return sqlite3_column_int64(m_stmt, index);
}
double SqliteStatement::columnDouble(int index) const {
    return sqlite3_column_double(m_stmt, index);
}
std::string SqliteStatement::columnText(int index) const {
    const unsigned char* text = sqlite3_column_text(m_stmt, index);
    return text != nullptr ? std::string(reinterpret_cast<const char*>(text)) : std::string();
}
bool SqliteStatement::columnIsNull(int index) const {
    return sqlite3_column_type(m_stmt, index) == SQLITE_NULL;
}

namespace {

// "file:PATH?immutable=1" with the characters a URI path may not hold percent-encoded.
std::string immutableUri(const std::string& path) {
    std::string uri = "file:";
    for (const char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
        } else {
            uri += c;
        }
    }
    return uri + "?immutable=1";
}

}  // namespace

SqliteDb::SqliteDb(const std::string& path, OpenMode mode) : m_path(path) {
    int flags = mode == OpenMode::kReadWriteCreate ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
                : mode == OpenMode::kReadWrite     ? SQLITE_OPEN_READWRITE
                                                   : SQLITE_OPEN_READONLY;
    std::string name = path;
    if (mode == OpenMode::kReadOnlyImmutable) {
        flags |= SQLITE_OPEN_URI;
        name = immutableUri(path);
    }
    int rc = sqlite3_open_v2(name.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw inputError(
            fmt::format("cannot open trace database '{}': {}; check the path and its "
                        "permissions, or pass another --db",
                        path, message));
    }
    sqlite3_busy_timeout(m_db, 5000);
    noteOpenedDatabase(path);  // no output file may be written over it (OpenedDatabases.h)
}

SqliteDb::~SqliteDb() { sqlite3_close(m_db); }

void SqliteDb::exec(const std::string& sql) {
    char* error = nullptr;
    int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error);
    if (rc != SQLITE_OK) {
        std::string message = error != nullptr ? error : sqlite3_errstr(rc);
        sqlite3_free(error);
        throw inputError(sqliteErrorMessage(m_db, rc, message));
    }
}

std::int64_t SqliteDb::queryInt(const std::string& sql) {
    SqliteStatement statement(m_db, sql);
    return statement.step() ? statement.columnInt(0) : 0;
}

}  // namespace glueprof
