// `glueprof profile` and `ab --exec` in hostile hands (issue 52): each test is a case of the
// battery that failed before its fix, run as a user would — real processes, real signals, a real
// size-limited file system — and each asserts what the user is owed: the A/B compares what it
// says it compares, no process outlives glueprof, the program runs once, every refusal comes
// before anything runs and in one line, nothing half-written is left.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <functional>
#include <iterator>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "profiler/core/TraceReader.h"
#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

namespace hostile {

using Result = testing::CliResult;
using testing::CliTest;

const std::string kProfiledPython = GLUEPROF_TEST_PYTHON;

#define SKIP_WITHOUT_PROFILED_PYTHON() \
    if (kProfiledPython.empty())       \
    GTEST_SKIP() << "built without GLUEPROF_PYTHON: no python to profile"

// A training loop of STEPS steps (default 3) that writes its PID to argv[1] once it has trained
// one step, and reports ARMV + armvalue.VALUE (a module found on PYTHONPATH, when there is one) as
// its loss.
void writeTrainer(const std::string& path) {
    std::ofstream(path)
        << "import os, sys, time, torch\n"
           "m = torch.nn.Linear(4, 4); o = torch.optim.SGD(m.parameters(), lr=0.1)\n"
           "for i in range(int(os.environ.get('STEPS', '3'))):\n"
           "    m(torch.randn(2, 4)).sum().backward(); o.step(); o.zero_grad()\n"
           "    if i == 0 and len(sys.argv) > 1:\n"
           "        open(sys.argv[1], 'w').write(str(os.getpid()))\n"
           "    time.sleep(0.02)\n"
           "try:\n"
           "    import armvalue; extra = armvalue.VALUE\n"
           "except ImportError:\n"
           "    extra = 0\n"
           "from glueprof import record_loss\n"
           "record_loss(float(os.environ.get('ARMV', '0')) + extra)\n";
}

int lineCount(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// Whether PID runs (a zombie has ended: its parent, init, has not reaped it yet).
bool running(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    const auto close = stat.rfind(')');
    return close != std::string::npos && stat.size() > close + 2 && stat[close + 2] != 'Z';
}

bool waitUntil(const std::function<bool()>& condition, int seconds) {
    for (int i = 0; i < seconds * 20; ++i) {
        if (condition()) return true;
        ::usleep(50'000);
    }
    return condition();
}

// `glueprof ARGS...` started in the background with ENVIRONMENT added; its stderr in ERR.
pid_t startGlueprof(const std::vector<std::string>& args,
                    const std::vector<std::string>& environment, const std::string& err) {
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    for (const std::string& variable : environment) ::putenv(const_cast<char*>(variable.c_str()));
    ::freopen(err.c_str(), "w", stderr);
    ::freopen("/dev/null", "w", stdout);
    std::vector<char*> argv{const_cast<char*>(GLUEPROF_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(GLUEPROF_CLI, argv.data());
    ::_exit(127);
}

std::vector<std::string> filesIn(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace hostile

using namespace hostile;

// 1. An arm's variable replaces the one glueprof itself has (ARMV, PYTHONPATH): the A/B is not
// silently an A/A.
TEST_F(CliTest, AbExecArmsRunWithTheirOwnValuesOfVariablesGlueprofAlsoHas) {
    SKIP_WITHOUT_PROFILED_PYTHON();
    writeTrainer(path("train.py"));
    for (const auto& [folder, value] :
         std::map<std::string, int>{{"a", 10}, {"b", 20}, {"c", 30}}) {
        fs::create_directory(path(folder));
        std::ofstream(path(folder + "/armvalue.py")) << "VALUE = " << value << "\n";
    }
    const std::string db = path("ab.sqlite");
    const Result r =
        run(fmt::format("ab --exec \"{} {}\" --baseline-env ARMV=1 --baseline-env PYTHONPATH={} "
                        "--optimized-env ARMV=2 --optimized-env PYTHONPATH={} --repeats 1 --db {}",
                        kProfiledPython, path("train.py"), path("a"), path("b"), db),
            fmt::format("ARMV=7 PYTHONPATH={}", path("c")));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const TraceReader reader(db);
    std::map<Arm, double> lastLoss;
    for (const RunSummary& summary : reader.listRuns()) {
        const TraceModel model = reader.loadRun(summary.id);
        ASSERT_FALSE(model.steps().empty());
        lastLoss[summary.identity.arm] = model.steps().back().loss;
    }
    EXPECT_EQ(lastLoss[Arm::kBaseline], 11.0);   // ARMV=1, a's VALUE
    EXPECT_EQ(lastLoss[Arm::kOptimized], 22.0);  // ARMV=2, b's VALUE
}

// 2. A shell script that starts Python: SIGKILL or SIGTERM to glueprof ends the Python too, and
// (5.) what the killed profile recorded is merged by the next profile of that database.
class ProfileKilled : public CliTest, public ::testing::WithParamInterface<int> {};

TEST_P(ProfileKilled, EndsThePythonAShellScriptStartedAndTheNextProfileMergesItsSteps) {
    SKIP_WITHOUT_PROFILED_PYTHON();
    const int signal = GetParam();
    writeTrainer(path("train.py"));
    const std::string script = path("run.sh");
    std::ofstream(script) << "#!/bin/sh\n"
                          << kProfiledPython << " " << path("train.py") << " " << path("pid")
                          << "\necho done\n";
    fs::permissions(script, fs::perms::owner_all);
    const std::string db = path("k.sqlite");
    const pid_t glueprof =
        startGlueprof({"profile", "--db", db, "--", script}, {"STEPS=100000"}, path("err.txt"));
    ASSERT_TRUE(waitUntil([&] { return !slurp(path("pid")).empty(); }, 60))
        << slurp(path("err.txt"));
    const int python = std::stoi(slurp(path("pid")));
    ::usleep(300'000);  // a few steps recorded
    ::kill(glueprof, signal);
    int status = 0;
    ASSERT_EQ(::waitpid(glueprof, &status, 0), glueprof);
    EXPECT_TRUE(waitUntil([&] { return !running(python); }, signal == SIGKILL ? 5 : 0))
        << "python (" << python << ") outlived glueprof, killed by signal " << signal;
    if (running(python)) ::kill(python, SIGKILL);

    writeTrainer(path("train.py"));
    const Result r = run(
        fmt::format("profile --db {} -- {} {}", db, kProfiledPython, path("train.py")), "STEPS=2");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::vector<RunSummary> runs = TraceReader(db).listRuns();
    if (signal == SIGKILL) {
        EXPECT_NE(r.err.find("merged 1 run(s) that earlier runs"), std::string::npos) << r.err;
        ASSERT_EQ(runs.size(), 2u);
        EXPECT_EQ(runs[0].displayStatus(), "aborted");
        EXPECT_GE(TraceReader(db).loadRun(runs[0].id).steps().size(), 2u);
    } else {
        ASSERT_EQ(runs.size(), 2u);  // the SIGTERM'd profile stored its run itself
        EXPECT_EQ(r.err.find("merged"), std::string::npos) << r.err;
    }
    for (const std::string& name : filesIn(m_dir))
        EXPECT_EQ(name.find("k.sqlite."), std::string::npos) << name << " left beside the database";
}

INSTANTIATE_TEST_SUITE_P(BySignal, ProfileKilled, ::testing::Values(SIGKILL, SIGTERM));

// 3. A statically linked program is looked at without being run: it runs once, with its
// arguments.
TEST_F(CliTest, ProfileRunsAStaticallyLinkedProgramOnce) {
    if (std::system("command -v gcc >/dev/null && test -f /usr/lib/x86_64-linux-gnu/libc.a") != 0)
        GTEST_SKIP() << "no gcc with a static libc here";
    std::ofstream(path("count.c"))
        << "#include <stdio.h>\nint main(int c, char** v) {\n"
           "  FILE* f = fopen(\""
        << path("runs") << "\", \"a\"); fprintf(f, \"%d\\n\", c); fclose(f); return 0; }\n";
    ASSERT_EQ(
        std::system(fmt::format("gcc -static -o {} {}", path("count"), path("count.c")).c_str()),
        0);
    const Result r =
        run(fmt::format("profile --db {} -- {} one two", path("s.sqlite"), path("count")));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(slurp(path("runs")), "3\n");  // once, with both arguments
}

// 4, 7, and a name too long: refused before anything runs (the program leaves no mark), in one
// line that says why and what to do, exit 2, no database created.
TEST_F(CliTest, ProfileRefusesWhatCannotBeRecordedOrRunBeforeAnythingRuns) {
    SKIP_WITHOUT_PROFILED_PYTHON();
    const std::string marker = path("ran");
    std::ofstream(path("mark.py")) << "open('" << marker << "', 'w').close()\nimport torch\n";
    std::ofstream(path("flagged.py"))
        << "#!" << kProfiledPython << " -E\nopen('" << marker << "', 'w').close()\n";
    std::ofstream(path("bare")) << "touch " << marker << "\n";
    std::ofstream(path("lost")) << "#!/nonexistent/bin/python3\nopen('" << marker
                                << "', 'w').close()\n";
    for (const char* file : {"flagged.py", "bare", "lost"})
        fs::permissions(path(file), fs::perms::owner_all);
    const std::string longName = path(std::string(240, 'x') + ".sqlite");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {fmt::format("{} -I {}", kProfiledPython, path("mark.py")), "starts Python with '-I'"},
        {fmt::format("{} -uE {}", kProfiledPython, path("mark.py")), "starts Python with '-uE'"},
        {fmt::format("{} -S {}", kProfiledPython, path("mark.py")), "starts Python with '-S'"},
        {path("flagged.py"), "(on its #! line too)"},
        {path("bare"), "is neither a program nor a script with a #! line"},
        {path("lost"), "names the interpreter '/nonexistent/bin/python3' on its #! line"},
    };
    for (const auto& [command, expected] : cases) {
        const Result r = run(fmt::format("profile --db {} -- {}", path("r.sqlite"), command));
        EXPECT_EQ(r.exitCode, 2) << command << ": " << r.err;
        EXPECT_NE(r.err.find(expected), std::string::npos) << command << ": " << r.err;
        EXPECT_EQ(lineCount(r.err), 1) << r.err;
        EXPECT_FALSE(fs::exists(marker)) << command << " ran";
        EXPECT_FALSE(fs::exists(path("r.sqlite"))) << command;
    }
    const Result r =
        run(fmt::format("profile --db {} -- {} {}", longName, kProfiledPython, path("mark.py")));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("is too long for the trace files glueprof keeps beside it"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(marker));
}

// 4. A program that deletes glueprof's trace while it runs is told so, not "never imported torch".
TEST_F(CliTest, ProfileSaysTheTraceVanishedWhenTheProgramDeletedIt) {
    SKIP_WITHOUT_PROFILED_PYTHON();
    std::ofstream(path("delete.py"))
        << "import glob, os, torch\n"
           "m = torch.nn.Linear(4, 4); o = torch.optim.SGD(m.parameters(), lr=0.1)\n"
           "for i in range(3):\n"
           "    m(torch.randn(2, 4)).sum().backward(); o.step(); o.zero_grad()\n"
           "for f in glob.glob('"
        << path("d.sqlite") << ".*'): os.remove(f)\n";
    const Result r = run(fmt::format("profile --db {} -- {} {}", path("d.sqlite"), kProfiledPython,
                                     path("delete.py")));
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("vanished while the program ran (something deleted it)"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("never imported torch"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("d.sqlite")));
}

// 8 and 9: a sitecustomize of the user's that prints a line does not hide the program's torch;
// a single process with RANK=2 is no rank of a group with missing ranks.
TEST_F(CliTest, ProfileIgnoresAPrintingSitecustomizeAndRanksThatDoNotStartAtZero) {
    SKIP_WITHOUT_PROFILED_PYTHON();
    writeTrainer(path("train.py"));
    fs::create_directory(path("site"));
    std::ofstream(path("site/sitecustomize.py")) << "print('2.0.0 from a sitecustomize')\n";
    const Result r = run(fmt::format("profile --db {} -- {} {}", path("p.sqlite"), kProfiledPython,
                                     path("train.py")),
                         fmt::format("PYTHONPATH={} RANK=2", path("site")));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err.find("was not there"), std::string::npos) << r.err;
    ASSERT_EQ(TraceReader(path("p.sqlite")).listRuns().size(), 1u);
}

// 6 and 11: a disk that fills — under a profile, under an import into a new database, and before
// an import could write its database's schema — leaves no database glueprof created (a real 600
// KiB tmpfs in a mount namespace of the test's own).
TEST_F(CliTest, ADiskThatFillsLeavesNoDatabaseGlueprofCreated) {
    SKIP_WITHOUT_PROFILED_PYTHON();
    if (std::system("unshare -m true 2>/dev/null") != 0)
        GTEST_SKIP() << "no mount namespace here (unshare -m)";
    writeTrainer(path("train.py"));
    ASSERT_EQ(std::system(fmt::format("python3 {}/bench/make_kineto_trace.py {} 4 >/dev/null",
                                      GLUEPROF_SOURCE_DIR, path("big.json"))
                              .c_str()),
              0);
    fs::create_directory(path("small"));
    const std::string small = path("small");
    const std::string script = fmt::format(
        "unshare -m sh -c 'mount -t tmpfs -o size=600k tmpfs {0} && "
        "STEPS=400 {1} profile --db {0}/p.sqlite -- {2} {3} >/dev/null 2>{4}/profile.err; "
        "echo $? >{4}/profile.rc; ls {0} >{4}/profile.ls; umount {0}; "
        "mount -t tmpfs -o size=600k tmpfs {0} && {1} import {4}/big.json --db {0}/i.sqlite "
        ">/dev/null 2>{4}/import.err; "
        "echo $? >{4}/import.rc; ls {0} >{4}/import.ls; "
        "head -c 595000 /dev/zero >{0}/filler; {1} import {4}/big.json --db {0}/j.sqlite "
        ">/dev/null 2>{4}/full.err; echo $? >{4}/full.rc; ls {0} >{4}/full.ls'",
        small, GLUEPROF_CLI, kProfiledPython, path("train.py"), m_dir.string());
    ASSERT_EQ(std::system(script.c_str()), 0);
    EXPECT_EQ(slurp(path("profile.rc")), "2\n") << slurp(path("profile.err"));
    EXPECT_NE(slurp(path("profile.err")).find("disk is full"), std::string::npos)
        << slurp(path("profile.err"));
    const std::string profiled = slurp(path("profile.ls"));
    EXPECT_EQ(profiled.find("p.sqlite\n"), std::string::npos) << profiled;
    EXPECT_EQ(slurp(path("import.rc")), "2\n") << slurp(path("import.err"));
    const std::string imported = slurp(path("import.ls"));
    EXPECT_EQ(imported.find("i.sqlite"), std::string::npos) << imported;
    EXPECT_EQ(slurp(path("full.rc")), "2\n") << slurp(path("full.err"));
    EXPECT_EQ(slurp(path("full.ls")), "filler\n") << slurp(path("full.err"));
}

// 12. A local job's rendezvous listens on loopback only.
TEST_F(CliTest, ALocalJobsRendezvousListensOnLoopbackOnly) {
    const std::string db = path("n.sqlite");
    const pid_t job = startGlueprof({"run", "--nproc", "2", "--preset", "tiny", "--warmup", "1",
                                     "--steps", "100000", "--db", db},
                                    {}, path("err.txt"));
    // The sockets the job's processes hold (their inodes), read from /proc.
    const auto jobSockets = [&] {
        std::set<std::string> inodes;
        for (const auto& entry : fs::directory_iterator("/proc")) {
            const std::string cmdline = slurp(entry.path().string() + "/cmdline");
            if (cmdline.find(db) == std::string::npos) continue;
            std::error_code ec;
            for (const auto& fd : fs::directory_iterator(entry.path() / "fd", ec)) {
                const std::string target = fs::read_symlink(fd.path(), ec).string();
                if (target.rfind("socket:[", 0) == 0)
                    inodes.insert(target.substr(8, target.size() - 9));
            }
        }
        return inodes;
    };
    // LISTEN entries (state 0A) of /proc/net/tcp and tcp6 held by the job: local address each.
    const auto listening = [&] {
        const std::set<std::string> inodes = jobSockets();
        std::vector<std::string> addresses;
        for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
            std::stringstream lines(slurp(table));
            std::string line;
            std::getline(lines, line);
            while (std::getline(lines, line)) {
                std::stringstream fields(line);
                std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout,
                    inode;
                fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >>
                    uid >> timeout >> inode;
                if (state == "0A" && inodes.count(inode) != 0) addresses.push_back(local);
            }
        }
        return addresses;
    };
    std::vector<std::string> addresses;
    waitUntil(
        [&] {
            addresses = listening();
            return addresses.size() >= 2;
        },
        60);
    ::kill(job, SIGTERM);
    int status = 0;
    ::waitpid(job, &status, 0);
    ASSERT_FALSE(addresses.empty()) << slurp(path("err.txt"));
    for (const std::string& address : addresses) {
        // 0100007F is 127.0.0.1; an IPv6 socket bound to ::1 reads 0..01000000.
        const std::string host = address.substr(0, address.find(':'));
        EXPECT_TRUE(host == "0100007F" || host == "00000000000000000000000001000000")
            << "a rank listens on " << address;
    }
}

}  // namespace
}  // namespace glueprof
