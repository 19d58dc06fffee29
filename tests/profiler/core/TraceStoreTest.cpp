#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "profiler/core/Error.h"
#include "profiler/core/LossDiagnostics.h"
#include "profiler/core/OpenedDatabases.h"
#include "profiler/core/RunCopy.h"
#include "profiler/core/Sqlite.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/core/TraceStore.h"
#include "profiler/core/TraceWriter.h"

namespace glueprof {
namespace {

class TraceStoreTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir =
            std::filesystem::temp_directory_path() /
            ("glueprof-store-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    std::filesystem::path m_dir;
};

// A complete run of OPS one-nanosecond ops named "op" on one lane, in a closed database DB.
void writeRunOfOps(const std::string& db, int ops) {
    TraceWriter writer(db);
    const RunId run = writer.beginRun(RunInfo{});
    const LaneId lane = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
    const StringId name = writer.intern("op");
    for (int i = 0; i < ops; ++i)
        writer.record(makeEvent(run, lane, EventKind::kOp, name, i, i + 1));
    writer.endRun(run, RunStatus::kComplete);
    writer.close();
}

template <typename F>
std::string errorOf(F&& f) {
    try {
        f();
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kInput);
        return e.what();
    }
    return "";
}

TEST_F(TraceStoreTest, RoundTripKeepsEveryEventFieldStepCounterAndDiagnostic) {
    const std::string db = path("roundtrip.sqlite");
    RunId run = 0;
    {
        TraceWriter writer(db);
        RunInfo info;
        info.label = "roundtrip";
        info.preset = "tiny";
        info.device = "cpu";
        run = writer.beginRun(info);
        LaneId main = writer.addLane(run, LaneKind::kHostThread, "main", -1, 42);
        LaneId copy = writer.addLane(run, LaneKind::kCopyStream, "copy", 0, 7);
        Event e;
        e.run = run;
        e.lane = main;
        e.kind = EventKind::kOp;
        e.category = Category::kGlue;
        e.name = writer.intern("aten::item");
        e.startNs = 2000;
        e.endNs = 2500;
        e.step = 3;
        e.layer = 1;
        e.microbatch = 0;
        e.correlation = 99;
        e.flags = kFlagWouldSync | kFlagHostRead;
        writer.record(e);
        Event c = e;
        c.lane = copy;
        c.kind = EventKind::kMemcpy;
        c.category = Category::kCopy;
        c.name = writer.intern("copy DtoH");
        c.startNs = 1000;
        c.endNs = 1900;
        c.bytes = 4096;
        c.srcKind = MemoryKind::kDevice;
        c.dstKind = MemoryKind::kPinned;
        c.flags = 0;
        writer.record(c);
        Event early = e;
        early.startNs = 100;
        early.endNs = 200;
        writer.record(early);
        writer.recordCounter(CounterRecord{run, 3, "mask_builds", 4});
        writer.recordDiagnostic(DiagnosticRecord{run, "dropped_records", 2, "test"});
        writer.recordStep(StepRecord{run, StepInfo{3, 50, 3000, false, 1, 2.5, 128}});
        writer.endRun(run, RunStatus::kComplete);
        writer.close();
    }
    TraceReader reader(db);
    ASSERT_EQ(reader.listRuns().size(), 1u);
    TraceModel model = reader.loadRun(run);
    EXPECT_EQ(model.run().label, "roundtrip");
    EXPECT_EQ(model.run().status, "complete");
    ASSERT_EQ(model.lanes().size(), 2u);
    EXPECT_EQ(model.lanes()[0].name, "main");
    EXPECT_EQ(model.lanes()[1].kind, LaneKind::kCopyStream);
    ASSERT_EQ(model.eventsOnLane(0).size(), 2u);
    EXPECT_EQ(model.eventsOnLane(0)[0].startNs, 100);  // sorted per lane
    const Event& op = model.eventsOnLane(0)[1];
    EXPECT_EQ(model.name(op.name), "aten::item");
    EXPECT_EQ(op.kind, EventKind::kOp);
    EXPECT_EQ(op.category, Category::kGlue);
    EXPECT_EQ(op.endNs, 2500);
    EXPECT_EQ(op.step, 3);
    EXPECT_EQ(op.layer, 1);
    EXPECT_EQ(op.microbatch, 0);
    EXPECT_EQ(op.correlation, 99);
    EXPECT_EQ(op.flags, kFlagWouldSync | kFlagHostRead);
    const Event& copy = model.eventsOnLane(1)[0];
    EXPECT_EQ(copy.bytes, 4096);
    EXPECT_EQ(copy.srcKind, MemoryKind::kDevice);
    EXPECT_EQ(copy.dstKind, MemoryKind::kPinned);
    ASSERT_EQ(model.steps().size(), 1u);
    EXPECT_EQ(model.steps()[0].loss, 2.5);
    EXPECT_EQ(model.steps()[0].tokens, 128);
    EXPECT_EQ(model.counter(3, "mask_builds"), 4);
    ASSERT_EQ(model.diagnostics().size(), 1u);
    EXPECT_EQ(model.diagnostics()[0].value, 2);
}

TEST_F(TraceStoreTest, BatchInsertsKeepEveryFieldOfEveryEventAndNumberThemAcrossBatches) {
    const std::string db = path("blocks.sqlite");
    constexpr int kEvents = 64 * 3 + 5;
    RunId run = 0;
    {
        TraceWriter writer(db);
        run = writer.beginRun(RunInfo{});
        LaneId lane = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
        for (int i = 0; i < kEvents; ++i) {
            Event e;
            e.run = run;
            e.lane = lane;
            e.kind = static_cast<EventKind>(i % 9);
            e.category = static_cast<Category>(i % 8);
            e.name = writer.intern("name" + std::to_string(i % 5));
            e.startNs = 10 * i;
            e.endNs = 10 * i + 1 + i % 3;
            e.step = i;
            e.layer = i % 7;
            e.microbatch = i % 2;
            e.correlation = 1000 + i;
            e.bytes = 3 * i;
            e.srcKind = static_cast<MemoryKind>(i % 4);
            e.dstKind = static_cast<MemoryKind>((i + 1) % 4);
            e.flags = static_cast<std::uint32_t>(i % 8);
            writer.record(e);
            if (i == kEvents / 2) writer.flush();  // two batches: seq goes on where it stopped
        }
        writer.close();
    }
    {
        SqliteDb raw(db, OpenMode::kReadOnly);
        EXPECT_EQ(raw.queryInt("SELECT count(DISTINCT seq) FROM events"), kEvents);
        EXPECT_EQ(raw.queryInt("SELECT max(seq) - min(seq) + 1 FROM events"), kEvents);
        // The writer's batch table is eponymous: nothing of it is stored in the file.
        EXPECT_EQ(
            raw.queryInt("SELECT count(*) FROM sqlite_master WHERE name LIKE '%event_batch%'"), 0);
    }
    TraceModel model = TraceReader(db).loadRun(run);
    ASSERT_EQ(model.eventsOnLane(0).size(), static_cast<std::size_t>(kEvents));
    for (int i = 0; i < kEvents; ++i) {
        const Event& e = model.eventsOnLane(0)[i];
        ASSERT_EQ(e.startNs, 10 * i);
        EXPECT_EQ(e.endNs, 10 * i + 1 + i % 3);
        EXPECT_EQ(e.kind, static_cast<EventKind>(i % 9));
        EXPECT_EQ(e.category, static_cast<Category>(i % 8));
        EXPECT_EQ(model.name(e.name), "name" + std::to_string(i % 5));
        EXPECT_EQ(e.step, i);
        EXPECT_EQ(e.layer, i % 7);
        EXPECT_EQ(e.microbatch, i % 2);
        EXPECT_EQ(e.correlation, 1000 + i);
        EXPECT_EQ(e.bytes, 3 * i);
        EXPECT_EQ(e.srcKind, static_cast<MemoryKind>(i % 4));
        EXPECT_EQ(e.dstKind, static_cast<MemoryKind>((i + 1) % 4));
        EXPECT_EQ(e.flags, static_cast<std::uint32_t>(i % 8));
    }
}

// The output guard protects the databases this process opened, by path and by inode. One this
// process removed (the tracing-cost calibration's scratch database, an abandoned writer's file)
// is forgotten: its inode goes back to the file system, and a report another process creates
// next may get it (seen as a concurrent `report` refused as "the trace database scratch.sqlite").
TEST_F(TraceStoreTest, ADatabaseThisProcessRemovedNoLongerGuardsItsPathOrInode) {
    const std::string kept = path("kept.sqlite");
    const std::string removed = path("removed.sqlite");
    writeRunOfOps(kept, 1);
    writeRunOfOps(removed, 1);
    EXPECT_NE(errorOf([&] { refuseOutputOntoDatabase(removed); }), "");
    removeTraceDatabase(removed);
    EXPECT_FALSE(std::filesystem::exists(removed));
    EXPECT_EQ(errorOf([&] { refuseOutputOntoDatabase(removed); }), "");
    EXPECT_EQ(errorOf([&] { refuseOutputOntoDatabase(removed + "-wal"); }), "");
    // The other database is still guarded.
    EXPECT_NE(errorOf([&] { refuseOutputOntoDatabase(kept); }), "");
}

TEST_F(TraceStoreTest, ANewTraceHas16KiBPagesAndAnExistingOneKeepsItsOwn) {
    const std::string fresh = path("fresh.sqlite");
    writeRunOfOps(fresh, 3);
    EXPECT_EQ(SqliteDb(fresh, OpenMode::kReadOnly).queryInt("PRAGMA page_size"), 16384);

    const std::string old = path("old.sqlite");
    {
        SqliteDb raw(old, OpenMode::kReadWriteCreate);
        raw.exec("PRAGMA page_size=4096");
        raw.exec("VACUUM");  // an empty file takes its page size when first written
    }
    writeRunOfOps(old, 3);
    SqliteDb reopened(old, OpenMode::kReadOnly);
    EXPECT_EQ(reopened.queryInt("PRAGMA page_size"), 4096);
    EXPECT_EQ(reopened.queryInt("SELECT count(*) FROM events"), 3);
}

TEST_F(TraceStoreTest, SecondWriterAppendsRunsWithFreshIdsAndSharedStrings) {
    const std::string db = path("append.sqlite");
    for (int i = 0; i < 2; ++i) {
        TraceWriter writer(db);
        RunId run = writer.beginRun(RunInfo{});
        EXPECT_EQ(run, i + 1);
        const LaneId lane = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
        writer.record(makeEvent(run, lane, EventKind::kOp, writer.intern("forward"), 0, 1));
        writer.endRun(run, RunStatus::kComplete);
    }
    EXPECT_EQ(TraceReader(db).listRuns().size(), 2u);
    // The second writer found the name the first stored: one row, used by both runs' events.
    SqliteDb sqlite(db, OpenMode::kReadOnly);
    EXPECT_EQ(sqlite.queryInt("SELECT count(*) FROM strings WHERE value = 'forward'"), 1);
    EXPECT_EQ(sqlite.queryInt("SELECT count(DISTINCT name_id) FROM events"), 1);
    EXPECT_EQ(sqlite.queryInt("SELECT count(DISTINCT run_id) FROM events"), 2);
}

TEST_F(TraceStoreTest, SchemaHasTheDocumentedTablesViewsAndVersion) {
    const std::string db = path("schema.sqlite");
    TraceWriter(db).close();
    SqliteDb sqlite(db, OpenMode::kReadOnly);
    EXPECT_EQ(sqlite.queryInt("PRAGMA user_version"), kTraceSchemaVersion);
    std::set<std::string> names;
    SqliteStatement q =
        sqlite.prepare("SELECT name FROM sqlite_master WHERE type IN ('table','view')");
    while (q.step()) names.insert(q.columnText(0));
    for (const char* expected :
         {"runs", "strings", "lanes", "events", "steps", "counters", "diagnostics", "StringIds",
          "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"}) {
        EXPECT_EQ(names.count(expected), 1u) << expected;
    }
    EXPECT_EQ(names.count("metrics"), 0u);  // v2 dropped the table nothing read
    std::set<std::string> runColumns;
    SqliteStatement columns = sqlite.prepare("SELECT name FROM pragma_table_info('runs')");
    while (columns.step()) runColumns.insert(columns.columnText(0));
    for (const char* expected :
         {"kind", "ab_group", "arm", "toggle", "schedule", "rank", "world_size"}) {
        EXPECT_EQ(runColumns.count(expected), 1u) << expected;
    }
    EXPECT_EQ(sqlite.prepare("PRAGMA journal_mode").step(), true);
}

TEST_F(TraceStoreTest, ReaderAndWriterRefuseAnotherSchemaVersionSayingWhatToDo) {
    const std::string db = path("future.sqlite");
    TraceWriter(db).close();
    SqliteDb(db, OpenMode::kReadWriteCreate).exec("PRAGMA user_version=7");
    std::string readError = errorOf([&] { TraceReader reader(db); });
    EXPECT_NE(readError.find("schema v7"), std::string::npos) << readError;
    EXPECT_NE(readError.find("re-record"), std::string::npos) << readError;
    EXPECT_NE(errorOf([&] { TraceWriter writer(db); }).find("schema v7"), std::string::npos);
}

TEST_F(TraceStoreTest, RefusesAFileThatIsNotSqliteAndLeavesItUntouched) {
    const std::string db = path("notes.txt");
    std::ofstream(db) << "these are my notes, not a database\n";
    auto before = std::filesystem::file_size(db);
    EXPECT_NE(errorOf([&] { TraceWriter writer(db); }).find("not an SQLite database"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { TraceReader reader(db); }).find("not an SQLite database"),
              std::string::npos);
    EXPECT_EQ(std::filesystem::file_size(db), before);
}

TEST_F(TraceStoreTest, RefusesAnSqliteFileThatIsNotAGlueprofTrace) {
    const std::string db = path("other.sqlite");
    SqliteDb(db, OpenMode::kReadWriteCreate).exec("CREATE TABLE mine (x INTEGER)");
    EXPECT_NE(errorOf([&] { TraceWriter writer(db); }).find("not a glueprof trace"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { TraceReader reader(db); }).find("not a glueprof trace"),
              std::string::npos);
}

TEST_F(TraceStoreTest, RefusesAPathInAMissingDirectoryAndAMissingFile) {
    EXPECT_NE(
        errorOf([&] { TraceWriter writer(path("no/such/dir/x.sqlite")); }).find("does not exist"),
        std::string::npos);
    EXPECT_NE(errorOf([&] { TraceReader reader(path("absent.sqlite")); }).find("does not exist"),
              std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(path("absent.sqlite")));
}

TEST_F(TraceStoreTest, ADirectoryAsTheDatabaseIsCalledADirectory) {
    // Issue 17, item 6: a directory given as --db was said not to exist.
    std::filesystem::create_directories(path("runs.sqlite"));
    EXPECT_NE(errorOf([&] { TraceReader reader(path("runs.sqlite")); }).find("is a directory"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { TraceWriter writer(path("runs.sqlite")); }).find("is a directory"),
              std::string::npos);
}

TEST_F(TraceStoreTest, ATruncatedTraceIsCalledDamagedNotForeign) {
    // Issue 17, item 6: a truncated trace was "not an SQLite database".
    const std::string db = path("whole.sqlite");
    writeRunOfOps(db, 20000);
    const std::string cut = path("cut.sqlite");
    std::ifstream in(db, std::ios::binary);
    std::string head(std::filesystem::file_size(db) / 3, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(cut, std::ios::binary) << head;
    const std::string error = errorOf([&] { TraceReader(cut).loadRun(1); });
    EXPECT_NE(error.find("is damaged (SQLite: database disk image is malformed): it may be "
                         "truncated or edited"),
              std::string::npos)
        << error;
    EXPECT_EQ(error.find("not an SQLite database"), std::string::npos) << error;
}

// A writer opened on a file whose strings table was overwritten refuses it before writing anything:
// it used to intern from the damaged table, insert a string twice and fail on UNIQUE with the file
// already changed (the CLI fuzzer's zeroed-bytes case).
TEST_F(TraceStoreTest, AWriterRefusesADamagedTableAndLeavesTheFileUntouched) {
    const std::string db = path("damaged.sqlite");
    {
        TraceWriter writer(db);
        const RunId run = writer.beginRun(RunInfo{});
        for (int i = 0; i < 300; ++i) writer.intern("name " + std::to_string(i));
        writer.endRun(run, RunStatus::kComplete);
        writer.close();
    }
    std::int64_t root = 0;
    std::int64_t pageBytes = 0;
    {
        SqliteDb sqlite(db, OpenMode::kReadOnly);
        root = sqlite.queryInt("SELECT rootpage FROM sqlite_master WHERE name = 'strings'");
        pageBytes = sqlite.queryInt("PRAGMA page_size");
    }
    {  // zero the cell pointers and cells of the strings table's root page (not page 1: no header)
        ASSERT_GT(root, 1);
        std::fstream file(db, std::ios::binary | std::ios::in | std::ios::out);
        file.seekp((root - 1) * pageBytes + 12);
        const std::string zeros(static_cast<std::size_t>(pageBytes / 2), '\0');
        file.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
    }
    const auto bytes = [&db] {
        std::ifstream in(db, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string before = bytes();
    const std::string error = errorOf([&] { TraceWriter writer(db); });
    EXPECT_NE(error.find("is damaged (SQLite quick_check of table strings: "), std::string::npos)
        << error;
    EXPECT_NE(error.find("restore it from a copy or re-record it"), std::string::npos) << error;
    EXPECT_EQ(bytes(), before);
}

// The same for the events table, which is too big to check whole: a damaged page on its right edge,
// where a new run's events go, is found by reading that edge at open, not by an insert after the
// run has begun (the CLI fuzzer's inserted-bytes case: `run` failed with the file changed).
TEST_F(TraceStoreTest, AWriterRefusesADamagedEventsRightEdgeAndLeavesTheFileUntouched) {
    const std::string db = path("damaged-events.sqlite");
    writeRunOfOps(db, 1);
    std::int64_t root = 0;
    std::int64_t pageBytes = 0;
    {
        SqliteDb sqlite(db, OpenMode::kReadOnly);
        root = sqlite.queryInt("SELECT rootpage FROM sqlite_master WHERE name = 'events'");
        pageBytes = sqlite.queryInt("PRAGMA page_size");
    }
    {  // the whole root page, the right edge's first page: no valid page type any more
        ASSERT_GT(root, 1);
        std::fstream file(db, std::ios::binary | std::ios::in | std::ios::out);
        file.seekp((root - 1) * pageBytes);
        const std::string zeros(static_cast<std::size_t>(pageBytes), '\0');
        file.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
    }
    const auto bytes = [&db] {
        std::ifstream in(db, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string before = bytes();
    const std::string error = errorOf([&] {
        TraceWriter writer(db);
        writer.beginRun(RunInfo{});
    });
    EXPECT_NE(error.find("malformed"), std::string::npos) << error;
    EXPECT_EQ(bytes(), before);
}

// Runs F in a child process without root's right to ignore permissions (as nobody when this test
// runs as root) and returns its exit status: F returns the child's exit code.
template <typename F>
int exitCodeAsUnprivilegedUser(F&& f) {
    const pid_t child = ::fork();
    if (child == 0) {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(100);
        int code = 101;
        try {
            code = f();
        } catch (...) {
            code = 102;
        }
        ::_exit(code);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(TraceStoreTest, ATraceInAReadOnlyDirectoryIsReadAndAWriterThereIsRefusedByName) {
    // Issue 17, item 6: a valid trace in a read-only directory was "not an SQLite database"
    // (SQLite cannot create its -shm file there).
    std::filesystem::create_directories(path("ro"));
    const std::string db = path("ro/trace.sqlite");
    writeRunOfOps(db, 100);
    for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(db + suffix);
    std::filesystem::permissions(m_dir, std::filesystem::perms::all);  // nobody may enter
    std::filesystem::permissions(
        path("ro"), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                        std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
    EXPECT_EQ(exitCodeAsUnprivilegedUser(
                  [&] { return TraceReader(db).loadRun(1).eventCount() == 100u ? 0 : 1; }),
              0);
    EXPECT_EQ(exitCodeAsUnprivilegedUser([&] {
                  const std::string error = errorOf([&] { TraceWriter writer(db); });
                  return error.find("directory") != std::string::npos &&
                                 error.find("is not writable") != std::string::npos
                             ? 0
                             : 1;
              }),
              0);
    std::filesystem::permissions(path("ro"), std::filesystem::perms::all);
}

TEST_F(TraceStoreTest, ATraceWithCommittedDataInItsLogInAReadOnlyDirectoryIsNotReadWithoutIt) {
    // Reading it as immutable would silently leave out what the -wal holds: refused by name.
    std::filesystem::create_directories(path("ro"));
    const std::string source = path("live.sqlite");
    const std::string db = path("ro/live.sqlite");
    TraceWriter(source).close();
    SqliteDb live(source, OpenMode::kReadWriteCreate);  // open across the copy: its -wal stays
    live.exec("PRAGMA wal_autocheckpoint=0");
    live.exec("CREATE TABLE notes (text TEXT)");
    for (const char* suffix : {"", "-wal"}) {
        std::filesystem::copy_file(source + suffix, db + suffix);
    }
    ASSERT_GT(std::filesystem::file_size(db + "-wal"), 0u);
    std::filesystem::permissions(m_dir, std::filesystem::perms::all);
    std::filesystem::permissions(
        path("ro"), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                        std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
    EXPECT_EQ(exitCodeAsUnprivilegedUser([&] {
                  const std::string error = errorOf([&] { TraceReader(db).listRuns(); });
                  return error.find("write-ahead log") != std::string::npos ? 0 : 1;
              }),
              0);
    std::filesystem::permissions(path("ro"), std::filesystem::perms::all);
}

// Issue 18: events wait in their thread's own buffer (no shared lock per event). A step's row
// still commits only after every event recorded before it on any thread, and a burst from several
// threads loses nothing.
TEST_F(TraceStoreTest, ThreadBuffersJoinTheQueueBeforeTheStepRowAndLoseNothingInABurst) {
    const std::string db = path("threads.sqlite");
    WriterOptions options;
    options.drainIntervalMs = 100000;  // no timed round: only the step row and close hand off
    TraceWriter writer(db, options);
    const RunId run = writer.beginRun(RunInfo{});
    const StringId name = writer.intern("op");
    constexpr int kThreads = 4;
    constexpr int kPerThread = 10007;  // not a multiple of the buffer's size
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            const LaneId lane = writer.addLane(run, LaneKind::kHostThread, "t", -1, t);
            for (int i = 0; i < kPerThread; ++i) {
                writer.record(makeEvent(run, lane, EventKind::kOp, name, i, i + 1));
            }
        });
    }
    for (std::thread& t : threads) t.join();
    writer.recordStep(StepRecord{run, StepInfo{0, 0, kPerThread, false, 1, 0.0, 0}});
    // No flush: the step row commits by itself (a step's end is urgent). Once it is there, so is
    // every event the four threads recorded before it.
    bool stepCommitted = false;
    for (int attempt = 0; attempt < 1000 && !stepCommitted; ++attempt) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (TraceReader(db).listRuns().empty()) continue;  // the run's row is not committed yet
        const TraceModel model = TraceReader(db).loadRun(run);
        if (model.steps().empty()) continue;
        stepCommitted = true;
        EXPECT_EQ(model.eventCount(), static_cast<std::size_t>(kThreads * kPerThread))
            << SqliteDb(db, OpenMode::kReadOnly).queryInt("SELECT count(*) FROM events")
            << " rows, " << SqliteDb(db, OpenMode::kReadOnly).queryInt("SELECT count(*) FROM lanes")
            << " lanes";
    }
    EXPECT_TRUE(stepCommitted);
    writer.endRun(run, RunStatus::kComplete);
    writer.close();
    EXPECT_EQ(writer.stats().eventsDropped, 0);
    EXPECT_EQ(writer.stats().eventsWritten, kThreads * kPerThread);
}

// A thread that records without pause while another ends steps: each step row that commits has
// every event recorded before recordStep was called committed with it or before it, and at the end
// every recorded event is in the file exactly once.
TEST_F(TraceStoreTest, AStepRowRacingARecordingThreadCommitsAfterEverythingRecordedBeforeIt) {
    const std::string db = path("race.sqlite");
    WriterOptions options;
    options.drainIntervalMs = 100000;  // only step rows hand batches to the writer thread
    TraceWriter writer(db, options);
    const RunId run = writer.beginRun(RunInfo{});
    const StringId name = writer.intern("op");
    writer.flush();  // the run's row, so a reader can look at its steps
    // The recorder records up to `allowed` events (the test raises it 3000 per step, so the queue
    // stays far from its drop limit) and is still recording when the step's row is written.
    std::atomic<std::int64_t> recorded{0};
    std::atomic<std::int64_t> allowed{0};
    std::atomic<bool> stop{false};
    std::thread recorder([&] {
        const LaneId lane = writer.addLane(run, LaneKind::kHostThread, "recorder", -1, 1);
        for (std::int64_t i = 0; !stop.load(std::memory_order_relaxed);) {
            if (i >= allowed.load(std::memory_order_acquire)) {
                std::this_thread::yield();
                continue;
            }
            writer.record(makeEvent(run, lane, EventKind::kOp, name, i, i + 1));
            recorded.store(++i, std::memory_order_release);
        }
    });
    struct JoinAtExit {
        std::atomic<bool>& stop;
        std::thread& thread;
        ~JoinAtExit() {
            stop = true;
            if (thread.joinable()) thread.join();
        }
    } joinAtExit{stop, recorder};
    SqliteDb reader(db, OpenMode::kReadOnly);
    constexpr int kSteps = 40;
    for (int step = 0; step < kSteps; ++step) {
        allowed.fetch_add(3000, std::memory_order_release);
        while (recorded.load(std::memory_order_acquire) < step * 3000 + 1500)
            std::this_thread::yield();  // half of this step's events recorded, half to come
        const std::int64_t recordedBefore = recorded.load(std::memory_order_acquire);
        writer.recordStep(StepRecord{run, StepInfo{step, 0, 1, false, 1, 0.0, 0}});
        const std::string stepRow =
            "SELECT count(*) FROM steps WHERE step = " + std::to_string(step);
        bool committed = false;
        for (int attempt = 0; attempt < 2000 && !committed; ++attempt) {
            // One read transaction: the step row and the events are one snapshot.
            reader.exec("BEGIN");
            committed = reader.queryInt(stepRow) == 1;
            const std::int64_t events = reader.queryInt("SELECT count(*) FROM events");
            reader.exec("COMMIT");
            if (committed) {
                ASSERT_GE(events, recordedBefore) << "step " << step;
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
        ASSERT_TRUE(committed) << "step " << step << " never committed";
    }
    stop = true;
    recorder.join();
    EXPECT_GT(recorded.load(), (kSteps - 1) * 3000 + 1500);
    writer.endRun(run, RunStatus::kComplete);
    writer.close();
    EXPECT_EQ(writer.stats().eventsDropped, 0);
    SqliteDb done(db, OpenMode::kReadOnly);
    EXPECT_EQ(done.queryInt("SELECT count(*) FROM events"), recorded.load());
    EXPECT_EQ(done.queryInt("SELECT count(DISTINCT start_ns) FROM events"), recorded.load());
}

TEST_F(TraceStoreTest, UnknownRunIdIsAnInputErrorNamingTheListCommand) {
    const std::string db = path("empty.sqlite");
    TraceWriter(db).close();
    EXPECT_NE(errorOf([&] { TraceReader(db).loadRun(5); }).find("glueprof list"),
              std::string::npos);
}

TEST_F(TraceStoreTest, FullQueueDropsEventsAndCountsThemAsADiagnosticOfTheirRun) {
    const std::string db = path("overflow.sqlite");
    WriterOptions options;
    options.maxQueuedEvents = 10;
    options.drainIntervalMs = 100000;  // no drain while we fill the queue
    TraceWriter writer(db, options);
    RunId run = writer.beginRun(RunInfo{});
    RunId quiet = writer.beginRun(RunInfo{});  // drops nothing: gets no diagnostic
    writer.flush();
    LaneId lane = writer.addLane(run, LaneKind::kHostThread, "t", -1, 1);
    Event e;
    e.run = run;
    e.lane = lane;
    for (int i = 0; i < 25; ++i) writer.record(e);
    writer.endRun(run, RunStatus::kComplete);
    writer.endRun(quiet, RunStatus::kComplete);
    writer.close();
    EXPECT_TRUE(TraceReader(db).loadRun(quiet).diagnostics().empty());
    TraceModel model = TraceReader(db).loadRun(run);
    EXPECT_EQ(model.eventCount(), 10u);
    ASSERT_EQ(model.diagnostics().size(), 1u);
    EXPECT_EQ(model.diagnostics()[0].name, "writer_dropped_events");
    EXPECT_EQ(model.diagnostics()[0].value, 15);
}

TEST(TraceReaderValidation, EventsEndingBeforeTheyStartOrWithoutANameAreLeftOutAndCounted) {
    // Issue 17, item 9: an edited row silently changed medians and verdicts.
    const std::string path =
        (std::filesystem::temp_directory_path() / "glueprof-invalid-events.sqlite").string();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    {
        TraceWriter writer(path);
        const RunId run = writer.beginRun(RunInfo{});
        const LaneId lane = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
        for (int i = 0; i < 10; ++i)
            writer.record(
                makeEvent(run, lane, EventKind::kOp, writer.intern("op"), i * 10, i * 10 + 5));
        writer.endRun(run, RunStatus::kComplete);
        writer.close();
    }
    {
        SqliteDb db(path, OpenMode::kReadWriteCreate);
        db.exec("UPDATE events SET end_ns = start_ns - 3 WHERE start_ns = 20");
        db.exec("UPDATE events SET name_id = 999 WHERE start_ns = 40");
    }
    const TraceModel model = TraceReader(path).loadRun(1);
    EXPECT_EQ(model.eventCount(), 8u);
    ASSERT_EQ(model.diagnostics().size(), 1u);
    EXPECT_EQ(model.diagnostics()[0].name, loss::kInvalidEvents);
    EXPECT_EQ(model.diagnostics()[0].value, 2);
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

TEST(TraceWriterCheckpoint, AClosedWriterLeavesEverythingInTheMainFile) {
    const std::string path =
        (std::filesystem::temp_directory_path() / "glueprof-checkpoint.sqlite").string();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    std::unique_ptr<TraceReader> reader;  // another connection, open across the write (as `ab`'s)
    {
        TraceWriter writer(path);
        reader = std::make_unique<TraceReader>(path);
        const RunId run = writer.beginRun(RunInfo{});
        const LaneId lane = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
        for (int i = 0; i < 1000; ++i)
            writer.record(makeEvent(run, lane, EventKind::kOp, writer.intern("op"), i, i + 1));
        writer.endRun(run, RunStatus::kComplete);
        writer.close();
    }
    // The WAL is empty (or gone): a copy of the main file alone holds the run and its events.
    // (Without the writer's checkpoint the open reader, which cannot checkpoint, keeps it full.)
    const std::string wal = path + "-wal";
    EXPECT_TRUE(!std::filesystem::exists(wal) || std::filesystem::file_size(wal) == 0);
    const std::string copy = path + ".copy";
    std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
    EXPECT_EQ(TraceReader(copy).loadRun(1).eventCount(), 1000u);
    reader.reset();
    for (const char* suffix : {"", "-wal", "-shm", ".copy"}) std::filesystem::remove(path + suffix);
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// Two writers of one file, in one process (each its own connection, as two processes have): ids
// are allocated by the file, so neither's runs, lanes or names collide with the other's.
TEST_F(TraceStoreTest, TwoWritersOfOneFileInterleaveRunsLanesAndNamesWithoutCollision) {
    const std::string db = path("two.sqlite");
    TraceWriter a(db);
    TraceWriter b(db);
    const RunId runA = a.beginRun(RunInfo{});
    const RunId runB = b.beginRun(RunInfo{});
    EXPECT_NE(runA, runB);
    const LaneId laneA = a.addLane(runA, LaneKind::kHostThread, "a", -1, 1);
    const LaneId laneB = b.addLane(runB, LaneKind::kHostThread, "b", -1, 2);
    // Both writers hand out local id 1 for their first name; each stores its own text.
    const StringId onlyA = a.intern("only in a");
    const StringId shared = b.intern("shared");
    EXPECT_EQ(onlyA, shared);
    a.record(makeEvent(runA, laneA, EventKind::kOp, onlyA, 0, 1));
    a.record(makeEvent(runA, laneA, EventKind::kOp, a.intern("shared"), 1, 2));
    b.record(makeEvent(runB, laneB, EventKind::kOp, shared, 0, 1));
    a.flush();
    b.flush();
    a.endRun(runA, RunStatus::kComplete);
    b.endRun(runB, RunStatus::kComplete);
    a.close();
    b.close();

    TraceReader reader(db);
    const TraceModel modelA = reader.loadRun(runA);
    const TraceModel modelB = reader.loadRun(runB);
    ASSERT_EQ(modelA.lanes().size(), 1u);
    ASSERT_EQ(modelB.lanes().size(), 1u);
    EXPECT_EQ(modelA.lanes()[0].name, "a");
    EXPECT_EQ(modelB.lanes()[0].name, "b");
    ASSERT_EQ(modelA.eventsOnLane(0).size(), 2u);
    EXPECT_EQ(modelA.name(modelA.eventsOnLane(0)[0].name), "only in a");
    EXPECT_EQ(modelA.name(modelA.eventsOnLane(0)[1].name), "shared");
    ASSERT_EQ(modelB.eventsOnLane(0).size(), 1u);
    EXPECT_EQ(modelB.name(modelB.eventsOnLane(0)[0].name), "shared");
    SqliteDb check(db, OpenMode::kReadOnly);
    EXPECT_EQ(check.queryInt("SELECT count(*) FROM strings WHERE value = 'shared'"), 1);
}

// Two processes creating one file both switch it to write-ahead logging; the switch takes the
// write lock from inside a read transaction, where SQLite does not wait for a busy lock (it could
// deadlock): the second failed at once with "database is locked" in one of two racing imports. A
// writer now waits the other's switch out.
TEST_F(TraceStoreTest, AWriterCreatingAFileWaitsOutAnotherSwitchingItToTheLog) {
    const std::string db = path("racing.sqlite");
    SqliteDb other(db, OpenMode::kReadWriteCreate);
    other.exec("BEGIN IMMEDIATE");  // the other writer's lock, held while it switches
    std::thread release([&other] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        other.exec("COMMIT");
    });
    std::string error;
    try {
        writeRunOfOps(db, 2);
    } catch (const GlueprofError& e) {
        error = e.what();
    }
    release.join();
    EXPECT_EQ(error, "");
    SqliteDb reopened(db, OpenMode::kReadOnly);
    EXPECT_EQ(reopened.queryInt("SELECT count(*) FROM events"), 2);
}

TEST_F(TraceStoreTest, AnAbandonedWriterRemovesTheFileItCreatedWhenNothingElseIsInIt) {
    const std::string db = path("abandoned.sqlite");
    TraceWriter writer(db);
    const RunId run = writer.beginRun(RunInfo{});
    writer.record(makeEvent(run, writer.addLane(run, LaneKind::kHostThread, "t", -1, 1),
                            EventKind::kOp, writer.intern("op"), 0, 1));
    EXPECT_TRUE(writer.abandon());
    for (const char* suffix : {"", "-wal", "-shm"})
        EXPECT_FALSE(std::filesystem::exists(db + suffix)) << suffix;
}

TEST_F(TraceStoreTest, AnAbandonedWriterRemovesItsFileAlsoWhenItsRunAlreadyEndedFailed) {
    // What an import does: the failing run is ended failed first, then the writer abandoned.
    const std::string db = path("failed.sqlite");
    TraceWriter writer(db);
    writer.endRun(writer.beginRun(RunInfo{}), RunStatus::kFailed);
    EXPECT_TRUE(writer.abandon());
    EXPECT_FALSE(std::filesystem::exists(db));
}

TEST_F(TraceStoreTest, AnAbandonedWriterKeepsRunsItCompletedAndFilesReachedThroughALink) {
    {
        const std::string db = path("completed.sqlite");
        TraceWriter writer(db);
        writer.endRun(writer.beginRun(RunInfo{}), RunStatus::kComplete);
        writer.beginRun(RunInfo{});
        EXPECT_FALSE(writer.abandon());
        TraceReader reader(db);
        ASSERT_EQ(reader.listRuns().size(), 2u);
        EXPECT_EQ(reader.listRuns()[0].status, "complete");
        EXPECT_EQ(reader.listRuns()[1].status, "failed");
    }
    {
        // Through a symlink another directory's writer could reach the file: never removed.
        std::filesystem::create_directories(m_dir / "real");
        const std::string target = path("real/target.sqlite");
        std::filesystem::create_symlink(target, path("link.sqlite"));
        TraceWriter writer(path("link.sqlite"));
        writer.beginRun(RunInfo{});
        EXPECT_FALSE(writer.abandon());
        EXPECT_TRUE(std::filesystem::exists(target));
    }
}

TEST_F(TraceStoreTest, AnAbandonedWriterKeepsAFileAnotherWriterHasOpenOrHasFilled) {
    const std::string db = path("shared.sqlite");
    {
        // Another writer has the file open (and has written nothing yet): it stays.
        TraceWriter creator(db);
        const RunId failed = creator.beginRun(RunInfo{});
        TraceWriter other(db);
        EXPECT_FALSE(creator.abandon());
        ASSERT_TRUE(std::filesystem::exists(db));
        const RunId kept = other.beginRun(RunInfo{});
        other.endRun(kept, RunStatus::kComplete);
        other.close();
        TraceReader reader(db);
        ASSERT_EQ(reader.listRuns().size(), 2u);
        EXPECT_EQ(reader.listRuns()[0].id, failed);
        EXPECT_EQ(reader.listRuns()[0].status, "failed");
        EXPECT_EQ(reader.listRuns()[1].status, "complete");
    }
    std::filesystem::remove(db);
    {
        // Another writer filled it and closed: its run stays.
        TraceWriter creator(db);
        const RunId failed = creator.beginRun(RunInfo{});
        {
            TraceWriter other(db);
            other.endRun(other.beginRun(RunInfo{}), RunStatus::kComplete);
        }
        EXPECT_FALSE(creator.abandon());
        TraceReader reader(db);
        ASSERT_EQ(reader.listRuns().size(), 2u);
        EXPECT_EQ(reader.listRuns()[0].id, failed);
        EXPECT_EQ(reader.listRuns()[0].status, "failed");
    }
}

TEST_F(TraceStoreTest, SqliteErrorsNameTheUsersFileAndNeverGlueprofsSource) {
    const std::string db = path("errors.sqlite");
    writeRunOfOps(db, 1);
    SqliteDb handle(db, OpenMode::kReadWrite);
    const std::string stepError = errorOf([&] {
        SqliteStatement insert = handle.prepare("INSERT INTO runs (id) VALUES (1)");
        insert.step();
    });
    const std::string execError = errorOf([&] { handle.exec("INSERT INTO runs (id) VALUES (1)"); });
    const std::string prepareError = errorOf([&] { handle.prepare("SELECT nonsense FROM runs"); });
    for (const std::string& message : {stepError, execError, prepareError}) {
        EXPECT_NE(message.find("errors.sqlite"), std::string::npos) << message;
        EXPECT_NE(message.find("SQLite error"), std::string::npos) << message;
        EXPECT_EQ(message.find(".cpp"), std::string::npos) << message;
        EXPECT_EQ(message.find("sqlite3_"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// A copy read as it goes (copyStoredRun: rank merges, ab --exec's blocks) stores what a copy of
// the loaded run stores, field for field, shifts, an edited row's diagnostic and empty lanes
// included; its memory does not grow with the run (bench/profile_store_memory.py measures it).
TEST_F(TraceStoreTest, ACopyReadAsItGoesStoresWhatACopyOfTheLoadedRunStores) {
    const std::string source = path("source.sqlite");
    {
        TraceWriter writer(source);
        const RunId run = writer.beginRun(RunInfo{});
        const LaneId main = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
        const LaneId stream = writer.addLane(run, LaneKind::kCopyStream, "copy", 0, 7);
        writer.addLane(run, LaneKind::kHostThread, "idle", -1, 2);  // a lane with no event
        for (int i = 0; i < 3000; ++i) {
            Event e = makeEvent(run, i % 3 == 0 ? stream : main, EventKind::kOp,
                                writer.intern("op" + std::to_string(i % 17)), i * 10, i * 10 + 5);
            e.step = i / 1000;
            e.correlation = i % 5 == 0 ? i + 1 : 0;
            e.bytes = i;
            writer.record(e);
        }
        writer.recordStep(StepRecord{run, StepInfo{0, 0, 10000, true, 0, 1.5, 64}});
        writer.recordStep(StepRecord{run, StepInfo{1, 10000, 20000, false, 1, 1.25, 64}});
        writer.recordCounter(CounterRecord{run, 1, "host_reads", 3});
        writer.recordDiagnostic(DiagnosticRecord{run, "profile_exit", 0, "exited with code 0"});
        writer.endRun(run, RunStatus::kComplete);
        writer.close();
    }
    {
        SqliteDb db(source, OpenMode::kReadWriteCreate);
        db.exec("UPDATE events SET end_ns = start_ns - 3 WHERE start_ns = 20");
    }
    const RunCopyShift shift{1000, 5, 1ll << 40};
    const TraceReader reader(source);
    const std::string loaded = path("loaded.sqlite");
    const std::string streamed = path("streamed.sqlite");
    for (const std::string& target : {loaded, streamed}) {
        TraceStore store(target);
        const RunId run = store.beginRun(RunInfo{});
        RunAppend append(store, run, 256);  // many small batches
        if (target == loaded) {
            copyRunContents(append, reader.loadRun(1), shift);
        } else {
            copyStoredRun(append, reader, 1, shift);
        }
        append.finish(RunStatus::kComplete);
        EXPECT_GE(append.batchesWritten(), 11);  // 2999 events in batches of 256, and the rest
        store.close();
    }
    const TraceModel a = TraceReader(loaded).loadRun(1);
    const TraceModel b = TraceReader(streamed).loadRun(1);
    ASSERT_EQ(a.lanes().size(), 3u);
    ASSERT_EQ(b.lanes().size(), a.lanes().size());
    EXPECT_EQ(a.eventCount(), 2999u);
    EXPECT_EQ(b.eventCount(), a.eventCount());
    for (std::size_t lane = 0; lane < a.lanes().size(); ++lane) {
        EXPECT_EQ(b.lanes()[lane].name, a.lanes()[lane].name);
        const auto& x = a.eventsOnLane(lane);
        const auto& y = b.eventsOnLane(lane);
        ASSERT_EQ(x.size(), y.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            EXPECT_EQ(a.name(x[i].name), b.name(y[i].name));
            EXPECT_EQ(x[i].startNs, y[i].startNs);
            EXPECT_EQ(x[i].endNs, y[i].endNs);
            EXPECT_EQ(x[i].step, y[i].step);
            EXPECT_EQ(x[i].correlation, y[i].correlation);
            EXPECT_EQ(x[i].bytes, y[i].bytes);
        }
    }
    EXPECT_EQ(a.eventsOnLane(0).front().startNs, 1010);  // event 1 at 10 ns, shifted by 1000
    ASSERT_EQ(b.steps().size(), 2u);
    EXPECT_EQ(b.steps()[1].step, 6);
    EXPECT_EQ(b.steps()[1].loss, 1.25);
    EXPECT_EQ(b.counters().size(), a.counters().size());
    EXPECT_EQ(b.diagnostics().size(), a.diagnostics().size());
    bool invalidCounted = false;
    for (const Diagnostic& d : b.diagnostics())
        invalidCounted = invalidCounted || (d.name == loss::kInvalidEvents && d.value == 1);
    EXPECT_TRUE(invalidCounted);
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// The bulk door streams: a run appended in batches is visible batch by batch to a reader, as
// "running" until its last batch, which brings its status; other writers interleave their own
// transactions between its batches; and the ids of sequential appends through one store do not
// meet (each append numbers its names and lanes from 1).
TEST_F(TraceStoreTest, ARunAppendedInBatchesIsShownCompleteOnlyAtItsEnd) {
    const std::string db = path("bulk.sqlite");
    TraceStore store(db);
    const RunId first = store.beginRun(RunInfo{});
    RunAppend append(store, first, 100);
    const LaneId lane = append.addLane(LaneKind::kHostThread, "main", -1, 1);
    for (int i = 0; i < 250; ++i)
        append.event(makeEvent(0, lane, EventKind::kOp, append.intern("op" + std::to_string(i % 3)),
                               i * 10, i * 10 + 5));
    EXPECT_EQ(append.batchesWritten(), 2);  // two full batches are in the file already
    {
        const TraceReader reader(db);
        EXPECT_EQ(reader.runSummary(first).status, "running");
        EXPECT_EQ(reader.loadRun(first).eventCount(), 200u);
    }
    // Another writer's run between the batches: the lock is held per batch only.
    {
        TraceWriter other(db);
        const RunId run = other.beginRun(RunInfo{});
        other.endRun(run, RunStatus::kComplete);
        other.close();
    }
    append.step(StepInfo{0, 0, 2500, false, 0, 1.0, 8});
    append.finish(RunStatus::kComplete);
    EXPECT_EQ(append.eventsWritten(), 250);
    // A second run through the same store: its names and lanes are numbered from 1 again.
    const RunId second = store.beginRun(RunInfo{});
    RunAppend again(store, second, 100);
    const LaneId otherLane = again.addLane(LaneKind::kCopyStream, "copy", 0, 7);
    again.event(makeEvent(0, otherLane, EventKind::kMemcpy, again.intern("memcpy"), 1, 2));
    again.finish(RunStatus::kFailed);
    store.close();

    const TraceReader reader(db);
    EXPECT_EQ(reader.runSummary(first).status, "complete");
    const TraceModel model = reader.loadRun(first);
    EXPECT_EQ(model.eventCount(), 250u);
    EXPECT_EQ(model.steps().size(), 1u);
    ASSERT_EQ(model.lanes().size(), 1u);
    EXPECT_EQ(model.name(model.eventsOnLane(0).back().name), "op0");  // event 249
    const TraceModel later = reader.loadRun(second);
    EXPECT_EQ(reader.runSummary(second).status, "failed");
    ASSERT_EQ(later.lanes().size(), 1u);
    EXPECT_EQ(later.lanes()[0].name, "copy");
    EXPECT_EQ(later.name(later.eventsOnLane(0).front().name), "memcpy");
}

// A store that created its file and fails before any run ends complete removes it on abandon;
// one whose run ended complete keeps it.
TEST_F(TraceStoreTest, AnAbandonedStoreRemovesOnlyAFileItCreatedWithNothingComplete) {
    const std::string created = path("abandoned.sqlite");
    {
        TraceStore store(created);
        store.beginRun(RunInfo{});
        EXPECT_TRUE(store.abandon());
    }
    EXPECT_FALSE(std::filesystem::exists(created));
    const std::string kept = path("kept.sqlite");
    {
        TraceStore store(kept);
        const RunId run = store.beginRun(RunInfo{});
        RunAppend(store, run).finish(RunStatus::kComplete);
        store.beginRun(RunInfo{});
        EXPECT_FALSE(store.abandon());
    }
    const TraceReader reader(kept);
    EXPECT_EQ(reader.runSummary(2).status, "failed");
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// A writer abandoned with a run it never ended still stores that run's dropped-events count (the
// loss `check` fails on), beside the run marked failed, in a database it did not create.
TEST_F(TraceStoreTest, AnAbandonedWriterKeepsTheDropCountOfItsUnendedRun) {
    const std::string db = path("dropped.sqlite");
    {
        TraceWriter first(db);
        first.endRun(first.beginRun(RunInfo{}), RunStatus::kComplete);
        first.close();
    }
    WriterOptions options;
    options.maxQueuedEvents = 10;  // a full thread buffer (1024 events) drops all but 10
    TraceWriter writer(db, options);
    const RunId run = writer.beginRun(RunInfo{});
    const LaneId lane = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
    const StringId name = writer.intern("op");
    for (int i = 0; i < 1024; ++i)
        writer.record(makeEvent(run, lane, EventKind::kOp, name, i, i + 1));
    EXPECT_FALSE(writer.abandon());  // the file holds another writer's complete run: it stays
    const TraceReader reader(db);
    EXPECT_EQ(reader.runSummary(run).status, "failed");
    std::int64_t dropped = 0;
    for (const Diagnostic& d : reader.loadDiagnostics(run))
        if (d.name == loss::kWriterDroppedEvents) dropped = d.value;
    EXPECT_EQ(dropped, 1024 - 10);
}

}  // namespace
}  // namespace glueprof
