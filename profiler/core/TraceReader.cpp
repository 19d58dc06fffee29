#include "profiler/core/TraceReader.h"

#include <vector>

#include <fmt/format.h>

#include "profiler/core/Error.h"
#include "profiler/core/LossDiagnostics.h"
#include "profiler/core/Sqlite.h"
#include "profiler/core/TraceSchema.h"

namespace glueprof {

namespace {

RunSummary readRunRow(const SqliteStatement& row) {
    RunSummary run;
    run.id = row.columnInt(0);
    run.label = row.columnText(1);
    run.status = row.columnText(2);
    run.preset = row.columnText(3);
    run.device = row.columnText(4);
    run.configJson = row.columnText(5);
    run.togglesJson = row.columnText(6);
    run.environmentJson = row.columnText(7);
    run.host = row.columnText(8);
    run.startedUnixNs = row.columnInt(9);
    run.endedUnixNs = row.columnInt(10);
    run.stepCount = row.columnInt(11);
    RunIdentity& id = run.identity;
    id.kind = parseRunKind(row.columnText(12)).value_or(RunKind::kTrained);
    id.abGroup = row.columnIsNull(13) ? 0 : row.columnInt(13);
    id.arm = row.columnIsNull(14) ? Arm::kNone : parseArm(row.columnText(14));
    id.toggle = row.columnIsNull(15) ? "" : row.columnText(15);
    id.schedule = row.columnIsNull(16) ? "" : row.columnText(16);
    if (!row.columnIsNull(17)) id.rank = static_cast<int>(row.columnInt(17));
    if (!row.columnIsNull(18)) id.worldSize = static_cast<int>(row.columnInt(18));
    return run;
}

}  // namespace

TraceReader::TraceReader(const std::string& path)
    : m_db(openTraceForReading(path)), m_schemaVersion(traceSchemaVersion(*m_db)) {}

TraceReader::~TraceReader() = default;

std::vector<RunSummary> TraceReader::listRuns() const {
    std::vector<RunSummary> runs;
    SqliteStatement query = m_db->prepare(sql::selectRuns(m_schemaVersion));
    while (query.step()) runs.push_back(readRunRow(query));
    return runs;
}

RunSummary TraceReader::runSummary(RunId run) const {
    SqliteStatement query = m_db->prepare(sql::selectRuns(m_schemaVersion, "r.id = ?1"));
    query.bind(1, static_cast<std::int64_t>(run));
    if (!query.step()) {
        throw inputError(
            fmt::format("run {} is not in '{}'; `glueprof list --db {}` shows the runs", run,
                        m_db->path(), m_db->path()));
    }
    return readRunRow(query);
}

namespace {

// One read transaction: every query inside sees the same committed state, so a run read while
// its writer commits is one consistent snapshot (a step's row never without its events).
class ReadSnapshot {
  public:
    explicit ReadSnapshot(SqliteDb& db) : m_db(db) { m_db.exec("BEGIN"); }
    ~ReadSnapshot() { sqlite3_exec(m_db.handle(), "COMMIT", nullptr, nullptr, nullptr); }
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;

  private:
    SqliteDb& m_db;
};

}  // namespace

namespace {

void markNamed(std::vector<char>& named, StringId id) {
    if (id <= 0 || static_cast<std::uint64_t>(id) >= (1ull << 32)) return;
    if (named.size() <= static_cast<std::size_t>(id)) named.resize(id + 1, 0);
    named[static_cast<std::size_t>(id)] = 1;
}

}  // namespace

std::vector<char> TraceReader::addLanesAndNames(TraceModelBuilder& builder, RunId run) const {
    SqliteStatement lanes = m_db->prepare(sql::kSelectLanes);
    lanes.bind(1, static_cast<std::int64_t>(run));
    while (lanes.step()) {
        Lane lane;
        lane.id = lanes.columnInt(0);
        lane.kind = static_cast<LaneKind>(lanes.columnInt(1));
        lane.name = lanes.columnText(2);
        lane.device = lanes.columnInt(3);
        lane.threadOrStream = lanes.columnInt(4);
        builder.addLaneWithId(lane);
    }

    // Every interned string: the table holds distinct names only, far fewer rows than a run's
    // events, so this beats finding the run's distinct name ids (a scan of all its events).
    SqliteStatement strings = m_db->prepare(sql::kSelectStrings);
    // String ids are the writer's 1, 2, 3...: a flag per id checks each event's name in O(1).
    std::vector<char> named;
    while (strings.step()) {
        const StringId id = strings.columnInt(0);
        markNamed(named, id);
        builder.addString(id, strings.columnText(1));
    }
    return named;
}

std::int64_t TraceReader::scanEvents(RunId run, const std::vector<char>& named,
                                     const std::function<void(const Event&)>& visit) const {
    auto isNamed = [&](StringId id) {
        return id == 0 ||  // no name: some writers record none
               (id > 0 && static_cast<std::size_t>(id) < named.size() &&
                named[static_cast<std::size_t>(id)] != 0);
    };
    SqliteStatement events = m_db->prepare(sql::kSelectEvents);
    events.bind(1, static_cast<std::int64_t>(run));
    std::int64_t invalid = 0;
    while (events.step()) {
        Event e;
        e.run = run;
        e.lane = events.columnInt(0);
        e.kind = static_cast<EventKind>(events.columnInt(1));
        e.category = static_cast<Category>(events.columnInt(2));
        e.name = events.columnInt(3);
        e.startNs = events.columnInt(4);
        e.endNs = events.columnInt(5);
        e.step = static_cast<std::int32_t>(events.columnInt(6));
        e.layer = static_cast<std::int32_t>(events.columnInt(7));
        e.microbatch = static_cast<std::int32_t>(events.columnInt(8));
        e.correlation = events.columnInt(9);
        e.bytes = events.columnInt(10);
        e.srcKind = static_cast<MemoryKind>(events.columnInt(11));
        e.dstKind = static_cast<MemoryKind>(events.columnInt(12));
        e.flags = static_cast<std::uint32_t>(events.columnInt(13));
        // A row no writer of glueprof makes (edited or damaged): left out of every statistic,
        // counted, said.
        if (e.endNs < e.startNs || !isNamed(e.name)) {
            ++invalid;
            continue;
        }
        visit(e);
    }
    return invalid;
}

void TraceReader::addStepsCountersAndDiagnostics(TraceModelBuilder& builder, RunId run) const {
    SqliteStatement steps = m_db->prepare(sql::kSelectSteps);
    steps.bind(1, static_cast<std::int64_t>(run));
    while (steps.step()) {
        StepInfo step;
        step.step = static_cast<std::int32_t>(steps.columnInt(0));
        step.startNs = steps.columnInt(1);
        step.endNs = steps.columnInt(2);
        step.warmup = steps.columnInt(3) != 0;
        step.block = static_cast<std::int32_t>(steps.columnInt(4));
        step.loss = steps.columnDouble(5);
        step.tokens = steps.columnInt(6);
        builder.addStep(step);
    }

    SqliteStatement counters = m_db->prepare(sql::kSelectCounters);
    counters.bind(1, static_cast<std::int64_t>(run));
    while (counters.step()) {
        builder.addCounter(static_cast<std::int32_t>(counters.columnInt(0)), counters.columnText(1),
                           counters.columnInt(2));
    }

    for (Diagnostic& d : loadDiagnostics(run)) builder.addDiagnostic(d);
}

Diagnostic invalidEventsDiagnostic(std::int64_t invalid) {
    return Diagnostic{
        loss::kInvalidEvents, invalid,
        "stored events with an end before their start or a name missing from the strings "
        "table: left out of every statistic; the database was edited or damaged, re-record "
        "the run"};
}

TraceModel TraceReader::loadRun(RunId run) const {
    const ReadSnapshot snapshot(*m_db);
    TraceModelBuilder builder(runSummary(run));
    const std::vector<char> named = addLanesAndNames(builder, run);
    const std::int64_t invalid =
        scanEvents(run, named, [&builder](const Event& e) { builder.addEventById(e); });
    if (invalid > 0) builder.addDiagnostic(invalidEventsDiagnostic(invalid));
    addStepsCountersAndDiagnostics(builder, run);
    return std::move(builder).build();
}

std::int64_t TraceReader::eventCount(RunId run) const {
    SqliteStatement count = m_db->prepare("SELECT count(*) FROM events WHERE run_id = ?1");
    count.bind(1, static_cast<std::int64_t>(run));
    return count.step() ? count.columnInt(0) : 0;
}

TraceModel TraceReader::loadRunWithoutEvents(RunId run) const {
    const ReadSnapshot snapshot(*m_db);
    TraceModelBuilder builder(runSummary(run));
    addLanesAndNames(builder, run);
    addStepsCountersAndDiagnostics(builder, run);
    return std::move(builder).build();
}

std::int64_t TraceReader::forEachEvent(RunId run,
                                       const std::function<void(const Event&)>& visit) const {
    const ReadSnapshot snapshot(*m_db);
    // The string ids alone: which names exist, not their text (loadRunWithoutEvents has those).
    SqliteStatement strings = m_db->prepare("SELECT id FROM strings");
    std::vector<char> named;
    while (strings.step()) markNamed(named, strings.columnInt(0));
    return scanEvents(run, named, visit);
}

std::vector<Diagnostic> TraceReader::loadDiagnostics(RunId run) const {
    SqliteStatement diagnostics = m_db->prepare(sql::kSelectDiagnostics);
    diagnostics.bind(1, static_cast<std::int64_t>(run));
    std::vector<Diagnostic> result;
    while (diagnostics.step()) {
        result.push_back(Diagnostic{diagnostics.columnText(0), diagnostics.columnInt(1),
                                    diagnostics.columnText(2)});
    }
    return result;
}

}  // namespace glueprof
