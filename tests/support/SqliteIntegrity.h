#pragma once
// SQLite's integrity check of a database file, for tests and the CLI fuzzer alike: its first real
// finding, "ok", or why it could not run. SQLite 3.40 (Debian 12's) reports "NULL value in
// events.COLUMN" on the WITHOUT ROWID events table where no value is NULL: such a finding counts
// only when a query finds the NULL.
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

namespace glueprof::testing {

inline std::int64_t sqliteCount(sqlite3* handle, const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    std::int64_t count = -1;
    if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        count = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return count;
}

inline std::string sqliteIntegrity(const std::string& db) {
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(handle);
        return "cannot open";
    }
    std::vector<std::string> findings;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(handle, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW)
            findings.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    }
    sqlite3_finalize(st);
    const std::string falseFinding = "NULL value in events.";
    std::string verdict = findings.empty() ? "no answer" : "ok";
    for (const std::string& finding : findings) {
        if (finding == "ok") break;
        const std::string column =
            finding.rfind(falseFinding, 0) == 0 ? finding.substr(falseFinding.size()) : "";
        if (!column.empty() &&
            column.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos &&
            sqliteCount(handle, "SELECT count(*) FROM events WHERE " + column + " IS NULL") == 0)
            continue;
        verdict = finding;
        break;
    }
    sqlite3_close(handle);
    return verdict;
}

}  // namespace glueprof::testing
