#pragma once
// Thin RAII wrappers over the SQLite C API. Every call that can fail goes through
// GLUEPROF_SQLITE_CHECK, which names the call, file:line and SQLite's own message.
#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace glueprof {

class SqliteDb;

// Throws a GlueprofError (exit code kInput) that speaks of the user's file: the database's path,
// SQLite's own message and code, and the fix where one is known (a full disk, a read-only or
// damaged file, a lock another process held past the busy timeout). Never glueprof's source.
[[noreturn]] void throwSqliteError(sqlite3* db, int rc);

#define GLUEPROF_SQLITE_CHECK(db, expr)                                 \
    do {                                                                \
        int glueprof_rc_ = (expr);                                      \
        if (glueprof_rc_ != SQLITE_OK && glueprof_rc_ != SQLITE_DONE && \
            glueprof_rc_ != SQLITE_ROW) {                               \
            ::glueprof::throwSqliteError(db, glueprof_rc_);             \
        }                                                               \
    } while (0)

class SqliteStatement {
  public:
    SqliteStatement(sqlite3* db, const std::string& sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;
    SqliteStatement(SqliteStatement&& other) noexcept;

    // Binding uses 1-based parameter indexes, like SQLite.
    void bind(int index, std::int64_t value);
    void bind(int index, double value);
    void bind(int index, const std::string& value);
    void bindNull(int index);

    bool step();   // true while a row is available
    void reset();  // ready for the next bind/step, keeps the compiled statement

    std::int64_t columnInt(int index) const;
    double columnDouble(int index) const;
    std::string columnText(int index) const;
    bool columnIsNull(int index) const;

  private:
    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
};

// kReadOnlyImmutable opens with SQLite's `immutable` URI parameter: no locks, no -shm. Safe only
// when no process can be writing the file (a read-only directory with no live WAL in it).
// kReadWrite opens an existing file only.
enum class OpenMode { kReadOnly, kReadOnlyImmutable, kReadWrite, kReadWriteCreate };

class SqliteDb {
  public:
    SqliteDb(const std::string& path, OpenMode mode);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    void exec(const std::string& sql);
    SqliteStatement prepare(const std::string& sql) { return SqliteStatement(m_db, sql); }
    std::int64_t queryInt(const std::string& sql);  // first column of the first row, 0 if none
    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }

  private:
    sqlite3* m_db = nullptr;
    std::string m_path;
};

}  // namespace glueprof
