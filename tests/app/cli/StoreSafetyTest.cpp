// The trace store under several processes at once, and the output files that must never replace
// it: concurrent writers of every kind, imports racing for a new file, reports through symlinks and
// onto the database, special files as --db, interrupted exports, and a rank whose rendezvous never
// answers. Every case runs the real binary on real files, with real processes and signals.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "profiler/core/Sqlite.h"
#include "tests/app/cli/CliHarness.h"
#include "tests/profiler/import/ImportFixtures.h"
#include "tests/support/SqliteIntegrity.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;

const std::string kTinyAb = "ab --preset tiny --opt packed_cache --steps 2 --warmup 1 --repeats 1";

class StoreSafetyTest : public testing::CliHarness {
  protected:
    // Every command at once, each its own process; their results in order.
    std::vector<CliResult> runAtOnce(const std::vector<std::string>& commands) const {
        std::string script;
        for (std::size_t i = 0; i < commands.size(); ++i) {
            script += fmt::format("({} {} >{} 2>{}; echo $? >{}) & ", GLUEPROF_CLI, commands[i],
                                  path(fmt::format("p{}.txt", i)), path(fmt::format("p{}.err", i)),
                                  path(fmt::format("p{}.rc", i)));
        }
        script += "wait";
        const std::string command = "bash -c '" + script + "'";
        EXPECT_EQ(std::system(command.c_str()), 0);
        std::vector<CliResult> results;
        for (std::size_t i = 0; i < commands.size(); ++i) {
            CliResult r;
            const std::string rc = slurp(path(fmt::format("p{}.rc", i)));
            r.exitCode = rc.empty() ? -1 : std::stoi(rc);
            r.out = slurp(path(fmt::format("p{}.txt", i)));
            r.err = slurp(path(fmt::format("p{}.err", i)));
            results.push_back(r);
        }
        return results;
    }

    static std::int64_t count(const std::string& db, const std::string& sql) {
        SqliteDb handle(db, OpenMode::kReadOnly);
        return handle.queryInt(sql);
    }

    // SQLite's integrity check, its first real finding or "ok" (tests/support/SqliteIntegrity.h).
    static std::string integrity(const std::string& db) { return testing::sqliteIntegrity(db); }

    // Every event's lane belongs to its run, every name is stored, every lane's run exists.
    static void expectConsistent(const std::string& db) {
        EXPECT_EQ(integrity(db), "ok");
        EXPECT_EQ(count(db,
                        "SELECT count(*) FROM events e LEFT JOIN lanes l ON l.id = e.lane_id "
                        "WHERE l.id IS NULL OR l.run_id <> e.run_id"),
                  0);
        EXPECT_EQ(count(db,
                        "SELECT count(*) FROM events e LEFT JOIN strings s ON s.id = "
                        "e.name_id WHERE s.id IS NULL"),
                  0);
        EXPECT_EQ(count(db,
                        "SELECT count(*) FROM lanes l LEFT JOIN runs r ON r.id = l.run_id "
                        "WHERE r.id IS NULL"),
                  0);
    }

    static bool isSqlite(const std::string& file) {
        return slurp(file).rfind(std::string("SQLite format 3\0", 16), 0) == 0;
    }

    std::string kinetoTrace() const {
        return testing::importFixture("kineto/hta-event_sync_trace.json.gz");
    }

    // A database holding one imported run.
    std::string importedDatabase(const std::string& name) const {
        const CliResult r = run(fmt::format("import {} --db {}", kinetoTrace(), path(name)));
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return path(name);
    }

    std::vector<std::string> leftoverTemporaries() const {
        std::vector<std::string> found;
        for (const auto& entry : fs::directory_iterator(m_dir)) {
            const std::string name = entry.path().filename().string();
            if (name.find(".glueprof-") != std::string::npos ||
                name.find(".tmp") != std::string::npos)
                found.push_back(name);
        }
        return found;
    }
};

TEST_F(StoreSafetyTest, WritersOfEveryKindInSeparateProcessesStoreEveryRunIntoOneDatabase) {
    const std::string db = path("shared.sqlite");
    const std::vector<CliResult> results = runAtOnce({
        kTinyAb + " --db " + db,
        kTinyAb + " --db " + db,
        "run --preset tiny --steps 2 --warmup 0 --db " + db,
        "run --preset tiny --steps 2 --warmup 0 --db " + db,
        "import " + kinetoTrace() + " --db " + db,
        "import " + kinetoTrace() + " --db " + db,
    });
    for (const CliResult& r : results) EXPECT_EQ(r.exitCode, 0) << r.err;
    // Two A/Bs of two arms, two runs, two imports: all complete, each with its own ids.
    EXPECT_EQ(count(db, "SELECT count(*) FROM runs"), 8);
    EXPECT_EQ(count(db, "SELECT count(*) FROM runs WHERE status = 'complete'"), 8);
    EXPECT_EQ(count(db, "SELECT count(*) FROM runs WHERE kind = 'imported'"), 2);
    EXPECT_EQ(count(db, "SELECT count(DISTINCT ab_group) FROM runs WHERE arm = 'optimized'"), 2);
    // Each A/B's optimized arm is paired with its own process's baseline.
    EXPECT_EQ(count(db,
                    "SELECT count(*) FROM runs o JOIN runs b ON b.id = o.ab_group WHERE "
                    "o.arm = 'optimized' AND b.arm = 'baseline'"),
              2);
    // One text, one id: names interned by six processes at once are stored once.
    EXPECT_EQ(count(db, "SELECT count(*) - count(DISTINCT value) FROM strings"), 0);
    expectConsistent(db);
    // Each import stored the same trace: the same events under its own run.
    EXPECT_EQ(count(db,
                    "SELECT count(DISTINCT n) FROM (SELECT count(*) AS n FROM events e JOIN "
                    "runs r ON r.id = e.run_id WHERE r.kind = 'imported' GROUP BY e.run_id)"),
              1);
}

TEST_F(StoreSafetyTest, ImportsRacingToCreateOneDatabaseBothKeepTheirRun) {
    for (int attempt = 0; attempt < 3; ++attempt) {
        const std::string db = path(fmt::format("new{}.sqlite", attempt));
        const std::vector<CliResult> results = runAtOnce({
            "import " + kinetoTrace() + " --db " + db,
            "import " + kinetoTrace() + " --db " + db,
        });
        ASSERT_TRUE(fs::exists(db));
        for (const CliResult& r : results) {
            EXPECT_EQ(r.exitCode, 0) << r.err;
            EXPECT_NE(r.out.find("imported run"), std::string::npos) << r.out;
        }
        EXPECT_EQ(count(db, "SELECT count(*) FROM runs WHERE status = 'complete'"), 2);
        expectConsistent(db);
    }
}

TEST_F(StoreSafetyTest, AReportWhoseTemporaryNameIsASymlinkToTheDatabaseLeavesTheDatabaseWhole) {
    const std::string db = importedDatabase("db.sqlite");
    // The names a temporary beside out.md could have had: each a link to the database.
    fs::create_symlink(db, path("out.md.tmp"));
    fs::create_symlink(db, path(".out.md.tmp"));
    const CliResult r = run("report --db " + db + " --format md --out " + path("out.md"));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(isSqlite(db));
    EXPECT_EQ(integrity(db), "ok");
    EXPECT_NE(slurp(path("out.md")).find("#"), std::string::npos);
    EXPECT_TRUE(fs::is_symlink(path("out.md.tmp")));  // not ours: left as it was
}

TEST_F(StoreSafetyTest, NoOutputOfAnyCommandIsWrittenOntoTheDatabaseOrItsCompanions) {
    const std::string db = importedDatabase("db.sqlite");
    fs::create_hard_link(db, path("hard-link.json"));
    fs::create_symlink(db, path("sym-link.json"));
    const std::vector<std::string> commands = {
        "export --db " + db + " --run 1 --out " + db,
        "export --db " + db + " --run 1 --out " + path("hard-link.json"),
        "export --db " + db + " --run 1 --out " + path("sym-link.json"),
        "export --db " + db + " --run 1 --format csv --out " + db + "-wal",
        "report --db " + db + " --format md --out " + path("./db.sqlite"),
        "report --db " + db + " --format md --out " + db + "-shm",
    };
    for (const std::string& command : commands) {
        const CliResult r = run(command);
        EXPECT_EQ(r.exitCode, 2) << command << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find("writing there would destroy it"), std::string::npos) << r.err;
        EXPECT_TRUE(isSqlite(db)) << command;
        EXPECT_FALSE(fs::exists(db + "-wal") && fs::file_size(db + "-wal") > 0 && !isSqlite(db))
            << command;
    }
    EXPECT_EQ(integrity(db), "ok");
    EXPECT_TRUE(leftoverTemporaries().empty());
}

TEST_F(StoreSafetyTest, CheckRefusesAJunitFileThatIsTheDatabase) {
    const std::string db = path("ab.sqlite");
    ASSERT_EQ(run(kTinyAb + " --db " + db).exitCode, 0);
    const CliResult r = run("check --db " + db + " --baseline " + std::string(GLUEPROF_SOURCE_DIR) +
                            "/assets/baselines/cpu-tiny.json --allow-missing --junit " + db);
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("writing there would destroy it"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "refused before any work: " << r.out;
    EXPECT_TRUE(isSqlite(db));
    EXPECT_EQ(integrity(db), "ok");
}

#ifdef GLUEPROF_GUI_BINARY
TEST_F(StoreSafetyTest, TheGuiWritesNoScreenshotOrStateDumpOntoItsDatabase) {
    const std::string db = importedDatabase("db.sqlite");
    for (const std::string& output :
         {"--dump-state " + db, "--screenshot " + db, "--dump-state " + db + "-wal",
          "--screenshot " + db + "-shm"}) {
        const std::string command = "xvfb-run -a -s '-screen 0 1280x800x24' " +
                                    std::string(GLUEPROF_GUI_BINARY) + " --db " + db +
                                    " --frames 2 " + output + " >" + path("gui.txt") + " 2>" +
                                    path("gui.err");
        const int status = std::system(command.c_str());
        EXPECT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 2) << output << "\n" << slurp(path("gui.err"));
        EXPECT_NE(slurp(path("gui.err")).find("writing there would destroy it"), std::string::npos)
            << slurp(path("gui.err"));
        EXPECT_TRUE(isSqlite(db)) << output;
    }
    EXPECT_EQ(integrity(db), "ok");
}

TEST_F(StoreSafetyTest, TheGuiNamesADatabasePathThatIsAFifo) {
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    const std::string command = "timeout -s KILL 120 xvfb-run -a -s '-screen 0 1280x800x24' " +
                                std::string(GLUEPROF_GUI_BINARY) + " --db " + path("fifo") +
                                " --frames 2 >" + path("gui.txt") + " 2>" + path("gui.err");
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2) << slurp(path("gui.err"));
    EXPECT_NE(slurp(path("gui.err")).find("not a regular file"), std::string::npos)
        << slurp(path("gui.err"));
    EXPECT_EQ(slurp(path("gui.err")).find("does not exist"), std::string::npos);
}
#endif

TEST_F(StoreSafetyTest, ADatabasePathThatIsNotARegularFileIsRefusedByName) {
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    const std::vector<std::string> commands = {
        "list --db " + path("fifo"), "import " + kinetoTrace() + " --db " + path("fifo"),
        kTinyAb + " --db " + path("fifo"), std::string("list --db /dev/null"),
        "import " + kinetoTrace() + " --db /dev/null"};
    for (const std::string& command : commands) {
        const CliResult r = run(command);
        EXPECT_EQ(r.exitCode, 2) << command << "\n" << r.err;
        EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << command << "\n" << r.err;
        EXPECT_EQ(r.err.find("does not exist"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists("/dev/null-journal"));
    EXPECT_FALSE(fs::exists("/dev/null-wal"));
}

TEST_F(StoreSafetyTest, ADeviceAsDataStopsAtItsFirstInvalidByte) {
    const CliResult r =
        run("run --preset tiny --steps 1 --data /dev/urandom --db " + path("d.sqlite"));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("not UTF-8 text (invalid byte at offset"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("d.sqlite")));
}

TEST_F(StoreSafetyTest, SigtermDuringAnExportRemovesItsTemporaryAndWritesNothing) {
    // A run big enough that its export takes a while: the signal lands mid-write.
    const std::string db = path("big.sqlite");
    ASSERT_EQ(run("run --preset tiny --steps 60 --warmup 0 --db " + db).exitCode, 0);
    const std::string out = path("trace.json");
    const pid_t child = ::fork();
    if (child == 0) {
        const std::string err = path("export.err");
        std::freopen(err.c_str(), "w", stderr);
        ::execl(GLUEPROF_CLI, GLUEPROF_CLI, "export", "--db", db.c_str(), "--run", "1", "--out",
                out.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // The signal as soon as the temporary exists (the write has begun).
    bool writing = false;
    for (int i = 0; i < 20000 && !writing; ++i) {
        writing = !leftoverTemporaries().empty();
        if (!writing) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ::kill(child, SIGTERM);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(writing) << "the export never began writing";
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        GTEST_SKIP() << "the export finished before the signal landed";
    }
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 143) << slurp(path("export.err"));
    EXPECT_NE(slurp(path("export.err")).find("nothing was written"), std::string::npos)
        << slurp(path("export.err"));
    EXPECT_TRUE(leftoverTemporaries().empty());
    EXPECT_FALSE(fs::exists(out));
}

// A port served by something that is not a c10d store: an HTTP server.
class NotAStore {
  public:
    explicit NotAStore(const std::string& dir) {
        m_pid = ::fork();
        if (m_pid == 0) {
            ::execlp("python3", "python3", "-c",
                     "import http.server, socketserver, sys\n"
                     "s = socketserver.TCPServer(('127.0.0.1', 0), "
                     "http.server.SimpleHTTPRequestHandler)\n"
                     "open(sys.argv[1] + '.part', 'w').write(str(s.server_address[1]))\n"
                     "import os; os.rename(sys.argv[1] + '.part', sys.argv[1])\n"
                     "s.serve_forever()\n",
                     (dir + "/port").c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        for (int i = 0; i < 200 && !fs::exists(dir + "/port"); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::ifstream in(dir + "/port");
        in >> m_port;
    }
    ~NotAStore() {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
    int port() const { return m_port; }

  private:
    pid_t m_pid = -1;
    int m_port = 0;
};

TEST_F(StoreSafetyTest, ARankWhoseRendezvousIsNoStoreEndsAfterItsTimeoutWithOneLine) {
    const NotAStore server(m_dir.string());
    ASSERT_GT(server.port(), 0);
    const std::string environment = fmt::format(
        "RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT={}", server.port());
    const CliResult r = run("run --preset tiny --steps 1 --rank-timeout 2 --db " + path("r.sqlite"),
                            "timeout -s KILL 60 env " + environment);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("could not join the rendezvous"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(StoreSafetyTest, SigtermEndsARankWaitingForItsRendezvous) {
    const NotAStore server(m_dir.string());
    ASSERT_GT(server.port(), 0);
    const pid_t child = ::fork();
    if (child == 0) {
        ::setenv("RANK", "1", 1);
        ::setenv("WORLD_SIZE", "2", 1);
        ::setenv("LOCAL_RANK", "1", 1);
        ::setenv("MASTER_ADDR", "127.0.0.1", 1);
        ::setenv("MASTER_PORT", std::to_string(server.port()).c_str(), 1);
        const std::string err = path("rank.err");
        std::freopen(err.c_str(), "w", stderr);
        const std::string db = path("r.sqlite");
        ::execl(GLUEPROF_CLI, GLUEPROF_CLI, "run", "--preset", "tiny", "--steps", "1",
                "--rank-timeout", "600", "--db", db.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::seconds(3));  // well inside the rendezvous
    ::kill(child, SIGTERM);
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 100 && done == 0; ++i) {
        done = ::waitpid(child, &status, WNOHANG);
        if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (done == 0) {
        ::kill(child, SIGKILL);
        ::waitpid(child, &status, 0);
        FAIL() << "the rank ignored SIGTERM for 10 s";
    }
    EXPECT_TRUE((WIFEXITED(status) && WEXITSTATUS(status) == 143) ||
                (WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM))
        << slurp(path("rank.err"));
}

TEST_F(StoreSafetyTest, ARankWithNobodyAtItsPortSaysSoInOneLine) {
    // A port nobody listens on: the one a server just gave back.
    int port = 0;
    {
        const NotAStore server(m_dir.string());
        port = server.port();
    }
    const CliResult r = run("run --preset tiny --steps 1 --rank-timeout 2 --db " + path("r.sqlite"),
                            fmt::format("timeout -s KILL 60 env RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 "
                                        "MASTER_ADDR=127.0.0.1 MASTER_PORT={}",
                                        port));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("rendezvous"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

TEST_F(StoreSafetyTest, RankZeroWhosePortIsTakenSaysSoInOneLine) {
    const NotAStore server(m_dir.string());
    ASSERT_GT(server.port(), 0);
    const CliResult r = run("run --preset tiny --steps 1 --rank-timeout 2 --db " + path("r.sqlite"),
                            fmt::format("timeout -s KILL 60 env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 "
                                        "MASTER_ADDR=127.0.0.1 MASTER_PORT={}",
                                        server.port()));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("rendezvous"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace glueprof
