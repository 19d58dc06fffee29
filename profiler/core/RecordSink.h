#pragma once
// What a recorder hands the store, and the seam between them. A RecordSink takes a run's rows in
// batches — names and lanes under the producer's own ids, events, steps, counters, diagnostics, and
// run statuses last — and keeps them: TraceStore writes them into SQLite (one transaction a batch);
// a later sink may carry them to another process. The live TraceWriter and the bulk RunAppend both
// produce StoreBatch; neither knows which sink holds what they record.
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/core/Event.h"
#include "profiler/core/RunIdentity.h"

namespace glueprof {

enum class RunStatus { kRunning, kComplete, kFailed, kAborted };
const char* toString(RunStatus status);

struct RunInfo {
    std::string label;
    std::string preset;
    std::string device;
    std::string configJson = "{}";
    std::string togglesJson = "[]";
    std::string environmentJson = "{}";
    std::string host;
    RunIdentity identity;  // kind, A/B group and arm, toggle, schedule
};

struct StepRecord {
    RunId run = 0;
    StepInfo info;
};

struct CounterRecord {
    RunId run = 0;
    std::int32_t step = 0;
    std::string name;
    std::int64_t value = 0;
};

struct DiagnosticRecord {
    RunId run = 0;
    std::string name;
    std::int64_t value = 0;
    std::string detail;
};

// RunInfo::identity.abGroup = kStartsAbGroup: the run starts an A/B group named by its own id.
constexpr RunId kStartsAbGroup = -1;

// One batch of rows. Names and lanes carry the producer's own ids (from 1), which the sink maps to
// the stored ones; a name or lane row comes in the batch that first uses it, or an earlier one.
struct StoreBatch {
    struct Name {
        StringId id;
        std::string value;
    };
    struct LaneRow {
        LaneId id;
        RunId run;
        LaneKind kind;
        std::string name;
        std::int64_t device;
        std::int64_t threadOrStream;
    };
    struct Status {
        RunId run;
        RunStatus status;
        std::int64_t endedUnixNs;
    };
    std::vector<Name> names;
    std::vector<LaneRow> lanes;
    // Events in the order recorded, in chunks (a live writer's thread buffers, handed over whole).
    std::vector<std::vector<Event>> eventChunks;
    std::size_t eventCount = 0;
    std::vector<StepRecord> steps;
    std::vector<CounterRecord> counters;
    std::vector<DiagnosticRecord> diagnostics;
    std::vector<Status> statuses;  // last: a run is complete only after its rows
    bool empty() const;
    void clear();
};

// The time now, for a status row's end.
std::int64_t unixNowNs();

class RecordSink {
  public:
    virtual ~RecordSink() = default;
    // Stores the run's row (status running) and returns its id once it is kept.
    virtual RunId beginRun(const RunInfo& info) = 0;
    // Keeps the batch whole or not at all; throws on failure. A run whose status row it kept is
    // ended: the sink no longer counts it open.
    virtual void write(StoreBatch& batch) = 0;
    // Ends the sink cleanly (whatever was written stays). Idempotent; throws on failure.
    virtual void close() = 0;
    // Ends the sink after a failure: the runs begun here and not ended are marked failed, and what
    // this sink created that holds nothing complete is removed. Returns whether it was removed.
    // Never throws.
    virtual bool abandon() = 0;
    virtual const std::string& path() const = 0;
    // One line when opening upgraded an older store (and where the old one was kept), else "".
    virtual const std::string& upgradeNotice() const = 0;
};

}  // namespace glueprof
