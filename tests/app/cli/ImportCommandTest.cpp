// `glueprof import`: every fixture format, bad traces, a directory of per-rank traces, foreign
// bytes, symbolic-link loops and a database inside the imported directory.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>

#include "profiler/core/TraceReader.h"
#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;
using testing::CliTest;

TEST_F(CliTest, ImportOfEveryFixtureFormatPrintsOneLinePerRun) {
    const std::string db = path("all.sqlite");
    Result r = run(fmt::format("import {} {} --db {}", sharedFixture("kineto"),
                               sharedFixture("nsys/test-cuda-report1.sqlite"), db));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto kinetoFiles =
        std::distance(std::filesystem::directory_iterator(sharedFixture("kineto")), {});
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), kinetoFiles + 1) << r.out;
    EXPECT_NE(r.out.find("41 cuda_sync"), std::string::npos);
    EXPECT_NE(r.out.find("export schema 3.24"), std::string::npos);
    Result listed = run(fmt::format("list --db {} --json", db));
    ASSERT_EQ(listed.exitCode, 0) << listed.err;
    EXPECT_NE(listed.out.find("\"imported\""), std::string::npos);
    // Run 1 (alexnet) has no ProfilerStep ranges: the advisor says its "per step" is the whole
    // trace; run 2 (event_sync, ProfilerStep#100) has steps of its own.
    const std::string two = path("two.sqlite");
    ASSERT_EQ(
        run(fmt::format("import {} {} --db {}", sharedFixture("kineto/hta-alexnet-trace.json.gz"),
                        sharedFixture("kineto/hta-event_sync_trace.json.gz"), two))
            .exitCode,
        0);
    Result advised = run(fmt::format("advise --db {} --run 1", two));
    EXPECT_EQ(advised.exitCode, 0);
    EXPECT_NE(advised.out.find("the trace has no step ranges"), std::string::npos) << advised.out;
    Result stepped = run(fmt::format("advise --db {} --run 2", two));
    EXPECT_EQ(stepped.exitCode, 0);
    EXPECT_EQ(stepped.out.find("the trace has no step ranges"), std::string::npos) << stepped.out;
}

// On a terminal (script(1) gives the import one) a line on stderr says how far the read is and
// what is being stored, and is cleared before the import's own lines; piped, nothing (the tests
// above read stderr line by line).
TEST_F(CliTest, OnATerminalTheImportShowsHowFarItIsAndClearsTheLine) {
    const std::string trace = sharedFixture("kineto/hta-alexnet-trace.json.gz");
    const std::string command = fmt::format("script -qec '{} import {} --db {}' /dev/null >{}",
                                            GLUEPROF_CLI, trace, path("t.sqlite"), path("tty.txt"));
    ASSERT_EQ(std::system(command.c_str()), 0);
    const std::string shown = slurp(path("tty.txt"));
    const std::size_t reading = shown.find("\rreading hta-alexnet-trace.json.gz: 100% of 0.0 MB");
    const std::size_t storing = shown.find("\rstoring hta-alexnet-trace.json.gz: ");
    const std::size_t imported = shown.find("imported run 1 from");
    ASSERT_NE(reading, std::string::npos) << shown;
    ASSERT_NE(storing, std::string::npos) << shown;
    ASSERT_NE(imported, std::string::npos) << shown;
    EXPECT_LT(reading, storing);
    EXPECT_LT(storing, imported);
    // Cleared before the import line: 60 spaces between carriage returns.
    EXPECT_NE(shown.rfind("\r" + std::string(60, ' ') + "\r", imported), std::string::npos);

    Result piped = run(fmt::format("import {} --db {}", trace, path("piped.sqlite")));
    ASSERT_EQ(piped.exitCode, 0) << piped.err;
    EXPECT_EQ(piped.err, "");
}

TEST_F(CliTest, BadTracesExitTwoWithOneLineAndWriteNoDatabase) {
    const std::string db = path("never.sqlite");
    std::ofstream(path("empty.json")).close();
    std::ofstream(path("broken.json")) << "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1,";
    for (const std::string& bad : {path("empty.json"), path("broken.json"), path("missing.json")}) {
        Result r = run(fmt::format("import {} --db {}", bad, db));
        EXPECT_EQ(r.exitCode, 2) << bad << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(db)) << bad;
    }
    // --ab reads both traces first: a bad AFTER leaves no lone BEFORE.
    Result ab = run(fmt::format("import --ab {} {} --db {}",
                                sharedFixture("kineto/hta-trace_compare-base.json.gz"),
                                path("broken.json"), db));
    EXPECT_EQ(ab.exitCode, 2) << ab.err;
    EXPECT_FALSE(fs::exists(db));
    EXPECT_EQ(run(fmt::format("import --ab {} --db {}", path("broken.json"), db)).exitCode, 1);
}

// A directory of one torch.profiler trace per rank: one run per rank, grouped as one data-parallel
// run, its collectives (record_param_comms, "Seq") lined up across the ranks and its NCCL kernels
// counted as communication, so the ranks' analysis is the same as for glueprof's own ranks.
TEST_F(CliTest, ADirectoryOfPerRankTracesImportsOneRunPerRankAnalyzedSideBySide) {
    fs::create_directories(path("ranks"));
    for (int rank : {1, 0}) {
        // Rank r starts all-reduce #3 at 20 + 5r us; its NCCL kernel [40, 60] half under a GEMM.
        std::ofstream(path(fmt::format("ranks/rank{}.pt.trace.json", rank)))
            << fmt::format(R"({{"distributedInfo": {{"rank": {}, "world_size": 2}},
              "traceEvents": [
                {{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 10, "tid": 10, "ts": 0, "dur": 100}},
                {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": 5, "dur": {}}},
                {{"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 10, "tid": 10, "ts": 19, "dur": 20}},
                {{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 10, "tid": 10, "ts": {}, "dur": 10,
                  "args": {{"Collective name": "allreduce", "Seq": 3, "In msg nelems": 256, "dtype": "Float"}}}},
                {{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7, "ts": 40, "dur": 20,
                  "args": {{"correlation": 11, "stream": 7, "device": 0, "Collective name": "allreduce"}}}},
                {{"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 8, "ts": 50, "dur": 20,
                  "args": {{"correlation": 12, "stream": 8, "device": 0}}}}]}})",
                           rank, 10 + rank, 20 + 5 * rank);
    }
    std::ofstream(path("ranks/notes.txt")) << "not a trace";
    const std::string db = path("ranks.sqlite");
    Result r = run(fmt::format("import {} --db {} --label job", path("ranks"), db));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("rank 0 of 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("rank 1 of 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("form one data-parallel group"), std::string::npos) << r.out;
    const nlohmann::json runs =
        nlohmann::json::parse(run(fmt::format("list --db {} --json", db)).out);
    ASSERT_EQ(runs.size(), 2u) << runs.dump();
    std::set<std::pair<std::string, int>> ranks;
    std::int64_t rank0 = 0;
    for (const auto& run : runs) {
        EXPECT_EQ(run["identity"]["kind"], "imported");
        EXPECT_EQ(run["identity"]["world_size"], 2);
        EXPECT_EQ(run["identity"]["ab_group"], runs[0]["id"]);  // one group: the job
        ranks.emplace(run["label"].get<std::string>(), run["identity"]["rank"].get<int>());
        if (run["identity"]["rank"] == 0) rank0 = run["id"].get<std::int64_t>();
    }
    EXPECT_EQ(ranks, (std::set<std::pair<std::string, int>>{{"job rank 0", 0}, {"job rank 1", 1}}));

    // The collective: a comm range numbered by its Seq, its bytes from nelems x Float.
    const TraceModel model = TraceReader(db).loadRun(rank0);
    int collectives = 0;
    for (std::size_t lane = 0; lane < model.lanes().size(); ++lane) {
        for (const Event& e : model.eventsOnLane(lane)) {
            if (model.name(e.name) == "c10d::allreduce_") {
                EXPECT_EQ(e.kind, EventKind::kOp);  // c10d's op: communication, not compute
                EXPECT_EQ(e.category, Category::kComm);
            }
            if (model.name(e.name) != "record_param_comms") continue;
            ++collectives;
            EXPECT_EQ(e.kind, EventKind::kRange);
            EXPECT_EQ(e.category, Category::kComm);
            EXPECT_EQ(e.correlation, 3);
            EXPECT_EQ(e.bytes, 1024);
        }
    }
    EXPECT_EQ(collectives, 1);

    // Rank 0's run brings rank 1's: the ranks compared, as for `run --nproc`.
    ASSERT_EQ(run(fmt::format("report --db {} --runs {} --format json --out {}", db, rank0,
                              path("ranks.json")))
                  .exitCode,
              0);
    std::ifstream in(path("ranks.json"));
    const nlohmann::json report = nlohmann::json::parse(in);
    ASSERT_EQ(report["rank_sets"].size(), 1u) << report.dump();
    const nlohmann::json& analysis = report["rank_sets"][0]["analysis"];
    EXPECT_EQ(report["rank_sets"][0]["runs"].size(), 2u);
    EXPECT_DOUBLE_EQ(analysis["median_straggler_ms"].get<double>(), 0.005);  // 25 us - 20 us
    // HTA's overlap on a GPU: the NCCL kernel [40, 60] under the GEMM [50, 70] for half its time.
    EXPECT_EQ(analysis["comm_compute_overlap"], nlohmann::json::parse("[0.5, 0.5]"));
    EXPECT_EQ(analysis["steps"][0]["collectives"], 1);
    ASSERT_EQ(run(fmt::format("report --db {} --runs {} --format md --out {}", db, rank0,
                              path("ranks.md")))
                  .exitCode,
              0);
    std::ifstream md(path("ranks.md"));
    const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("## Ranks of run"), std::string::npos) << text;
}

TEST_F(CliTest, ForeignBytesInATraceKeepEveryJsonOutputValid) {
    // An unknown category with a 0xFF byte and an escape sequence is skipped, and the reason
    // quoting it is stored, printed and serialized safely.
    std::ofstream(path("odd.json"))
        << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"c\xff\\u001b[2J\", "
           "\"name\": \"z\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}, "
           "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
           "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}";
    const std::string db = path("odd.sqlite");
    Result imported = run(fmt::format("import {} --db {} --label 'a\nb'", path("odd.json"), db));
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    EXPECT_EQ(imported.out.find('\x1b'), std::string::npos);
    for (const std::string& command :
         {fmt::format("list --db {} --json", db),
          fmt::format("report --db {} --format json --out {}", db, path("r.json"))}) {
        Result r = run(command);
        EXPECT_EQ(r.exitCode, 0) << command << ": " << r.err;
    }
    EXPECT_NO_THROW(nlohmann::json::parse(run(fmt::format("list --db {} --json", db)).out));
}

// Issue 28, item 11: a directory of traces with a symbolic link that loops ended the import with
// "internal error: filesystem error ... Too many levels of symbolic links". The link holds no
// trace: it is passed over in a line naming it, and the directory's traces are imported.
TEST_F(CliTest, ADirectoryWithASymbolicLinkLoopImportsItsTracesAndNamesTheLoop) {
    fs::create_directories(path("td"));
    std::ofstream(path("td/rank0.json"))
        << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, )"
           R"("tid": 1, "ts": 1, "dur": 1}]})";
    fs::create_symlink("loop.json", path("td/loop.json"));
    const std::string db = path("loop.sqlite");
    Result r = run(fmt::format("import {} --db {}", path("td"), db));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(
        r.out.find(fmt::format("skipped '{}': a symbolic link that loops", path("td/loop.json"))),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("imported run 1 from"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    // The loop given by name: one line, exit 2.
    Result named = run(fmt::format("import {} --db {}", path("td/loop.json"), db));
    EXPECT_EQ(named.exitCode, 2) << named.err;
    EXPECT_EQ(std::count(named.err.begin(), named.err.end(), '\n'), 1) << named.err;
    EXPECT_NE(named.err.find("is a symbolic link that loops"), std::string::npos) << named.err;
}

// Issue 28, item 17: `import td --db td/out.sqlite` a second time read its own output database as
// a trace and exited 2 ("is a glueprof trace database"). The output is no trace of its directory.
TEST_F(CliTest, ImportingADirectoryTwiceIntoADatabaseInsideItReadsOnlyTheTraces) {
    fs::create_directories(path("td"));
    for (int rank : {0, 1}) {
        std::ofstream(path(fmt::format("td/rank{}.json", rank)))
            << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, )"
               R"("tid": 1, "ts": 1, "dur": 1}]})";
    }
    const std::string db = path("td/out.sqlite");
    for (int pass = 1; pass <= 2; ++pass) {
        Result r = run(fmt::format("import {} --db {}", path("td"), db));
        ASSERT_EQ(r.exitCode, 0) << "import " << pass << ": " << r.err;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;  // one per trace
        EXPECT_EQ(r.out.find("out.sqlite"), std::string::npos) << r.out;
    }
    EXPECT_EQ(TraceReader(db).listRuns().size(), 4u);
}

}  // namespace
}  // namespace glueprof
