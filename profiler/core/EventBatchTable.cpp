#include "profiler/core/EventBatchTable.h"

#include <sqlite3.h>

#include "profiler/core/Sqlite.h"
#include "profiler/core/TraceSchema.h"

namespace glueprof {
namespace {

using Contents = EventBatchTable::Contents;

struct Table {
    sqlite3_vtab base;  // first: SQLite sees a sqlite3_vtab*
    const Contents* contents;
};

struct Cursor {
    sqlite3_vtab_cursor base;  // first: SQLite sees a sqlite3_vtab_cursor*
    const Contents* contents;
    std::size_t chunk;  // the row is contents->chunks[chunk][offset]
    std::size_t offset;
    std::int64_t row;  // rows before it
};

// From the cursor's position to the next row, past empty chunks (or to the end).
void skipEmptyChunks(Cursor& c) {
    while (c.chunk < c.contents->chunkCount && c.offset >= c.contents->chunks[c.chunk].size()) {
        ++c.chunk;
        c.offset = 0;
    }
}

// Stands for a writer's id that was never stored: the batch fails rather than store an id that
// would point at another writer's row.
constexpr std::int64_t kUnstoredId = -1;

// ID through TABLE (the writer's own id -> the stored one); 0 (none) stays 0.
std::int64_t storedId(std::int64_t id, const std::vector<std::int64_t>* table) {
    if (table == nullptr || id == 0) return id;
    if (id < 0 || static_cast<std::size_t>(id) >= table->size()) return kUnstoredId;
    const std::int64_t stored = (*table)[static_cast<std::size_t>(id)];
    return stored > 0 ? stored : kUnstoredId;
}

// The value of column `column` (the events table's order) of the cursor's row.
std::int64_t columnValue(const Cursor& c, int column) {
    const Event& e = c.contents->chunks[c.chunk][c.offset];
    switch (column) {
        case 0:
            return e.run;
        case 1:
            return storedId(e.lane, c.contents->storedLanes);
        case 2:
            return static_cast<std::int64_t>(e.kind);
        case 3:
            return static_cast<std::int64_t>(e.category);
        case 4:
            return storedId(e.name, c.contents->storedNames);
        case 5:
            return e.startNs;
        case 6:
            return e.endNs;
        case 7:
            return e.step;
        case 8:
            return e.layer;
        case 9:
            return e.microbatch;
        case 10:
            return e.correlation;
        case 11:
            return e.bytes;
        case 12:
            return static_cast<std::int64_t>(e.srcKind);
        case 13:
            return static_cast<std::int64_t>(e.dstKind);
        case 14:
            return static_cast<std::int64_t>(e.flags);
        default:
            return c.contents->firstSeq + c.row;
    }
}
static_assert(sql::kEventColumns == 16, "columnValue names every column of the events table");

int connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
    const int rc = sqlite3_declare_vtab(db, sql::kDeclareEventBatchTable);
    if (rc != SQLITE_OK) return rc;
    auto* table = static_cast<Table*>(sqlite3_malloc(sizeof(Table)));
    if (table == nullptr) return SQLITE_NOMEM;
    *table = Table{{}, static_cast<const Contents*>(aux)};
    *out = &table->base;
    return SQLITE_OK;
}

int disconnect(sqlite3_vtab* table) {
    sqlite3_free(table);
    return SQLITE_OK;
}

int bestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
    // One plan: every row, in order.
    info->estimatedCost = 1e6;
    return SQLITE_OK;
}

int open(sqlite3_vtab* table, sqlite3_vtab_cursor** out) {
    auto* cursor = static_cast<Cursor*>(sqlite3_malloc(sizeof(Cursor)));
    if (cursor == nullptr) return SQLITE_NOMEM;
    *cursor = Cursor{{}, reinterpret_cast<Table*>(table)->contents, 0, 0, 0};
    *out = &cursor->base;
    return SQLITE_OK;
}

int close(sqlite3_vtab_cursor* cursor) {
    sqlite3_free(cursor);
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* cursor, int, const char*, int, sqlite3_value**) {
    auto* c = reinterpret_cast<Cursor*>(cursor);
    c->chunk = 0;
    c->offset = 0;
    c->row = 0;
    skipEmptyChunks(*c);
    return SQLITE_OK;
}

int next(sqlite3_vtab_cursor* cursor) {
    auto* c = reinterpret_cast<Cursor*>(cursor);
    ++c->offset;
    ++c->row;
    skipEmptyChunks(*c);
    return SQLITE_OK;
}

int eof(sqlite3_vtab_cursor* cursor) {
    const auto* c = reinterpret_cast<Cursor*>(cursor);
    return c->chunk >= c->contents->chunkCount ? 1 : 0;
}

int column(sqlite3_vtab_cursor* cursor, sqlite3_context* context, int index) {
    const std::int64_t value = columnValue(*reinterpret_cast<Cursor*>(cursor), index);
    if ((index == 1 || index == 4) && value == kUnstoredId) {
        sqlite3_result_error(context,
                             "an event names a lane or name its writer never stored (a bug in "
                             "glueprof: please report it)",
                             -1);
        return SQLITE_ERROR;
    }
    sqlite3_result_int64(context, value);
    return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* out) {
    *out = reinterpret_cast<Cursor*>(cursor)->row;
    return SQLITE_OK;
}

sqlite3_module makeModule() {
    sqlite3_module module{};
    module.xCreate = nullptr;  // eponymous-only: nothing is stored in the schema
    module.xConnect = connect;
    module.xBestIndex = bestIndex;
    module.xDisconnect = disconnect;
    module.xOpen = open;
    module.xClose = close;
    module.xFilter = filter;
    module.xNext = next;
    module.xEof = eof;
    module.xColumn = column;
    module.xRowid = rowid;
    return module;
}

const sqlite3_module kModule = makeModule();

void freeContents(void* contents) { delete static_cast<Contents*>(contents); }

}  // namespace

EventBatchTable::EventBatchTable(sqlite3* db) : m_contents(new Contents{}) {
    // On failure SQLite has already called freeContents.
    GLUEPROF_SQLITE_CHECK(db, sqlite3_create_module_v2(db, sql::kEventBatchTable, &kModule,
                                                       m_contents, freeContents));
}

void EventBatchTable::expose(const std::vector<Event>* chunks, std::size_t count,
                             std::int64_t firstSeq, const std::vector<std::int64_t>* storedLanes,
                             const std::vector<std::int64_t>* storedNames) {
    *m_contents = Contents{chunks, count, firstSeq, storedLanes, storedNames};
}

}  // namespace glueprof
