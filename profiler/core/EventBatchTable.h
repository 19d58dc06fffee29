#pragma once
// The writer's bulk path into the `events` table: an eponymous, read-only SQLite virtual table
// (sql::kEventBatchTable) over events in memory. One `INSERT INTO events ... SELECT ... FROM` it
// (sql::kInsertEventsFromBatch) stores a whole batch: SQLite reads each value straight from the
// Event instead of from 16 bound parameters per row (bench/StoreIngestBench).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "profiler/core/Event.h"

struct sqlite3;

namespace glueprof {

class EventBatchTable {
  public:
    // Registers the table on `db`. The connection owns what the table reads; it lives until the
    // connection closes, so this object may go first.
    explicit EventBatchTable(sqlite3* db);

    // What the table holds for the next statement that reads it: the events of chunks[0, count)
    // in order, whose `seq` column counts from firstSeq, with each event's lane and name id read
    // through storedLanes / storedNames (the writer's own id -> the stored one; 0 stays 0, and an
    // id the table does not map fails the statement). They must stay in place until that statement
    // is done.
    void expose(const std::vector<Event>* chunks, std::size_t count, std::int64_t firstSeq,
                const std::vector<std::int64_t>* storedLanes,
                const std::vector<std::int64_t>* storedNames);
    void clear() { expose(nullptr, 0, 0, nullptr, nullptr); }

    struct Contents {
        const std::vector<Event>* chunks = nullptr;
        std::size_t chunkCount = 0;
        std::int64_t firstSeq = 0;
        const std::vector<std::int64_t>* storedLanes = nullptr;
        const std::vector<std::int64_t>* storedNames = nullptr;
    };

  private:
    Contents* m_contents = nullptr;  // owned by the connection (freed when it closes)
};

}  // namespace glueprof
