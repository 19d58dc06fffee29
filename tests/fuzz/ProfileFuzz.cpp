// A concurrency and signal fuzzer for the commands that run other people's programs, `glueprof
// profile` and `ab --exec` (issue 52; the store's own is CliFuzz.cpp's --concurrent). Each round
// starts 1 to 3 launches at once on one database — a Python training script directly, one started
// by a shell script, or an `ab --exec` of it with two arms' variables — and sends each glueprof a
// random fate after a random delay: nothing, SIGINT, SIGTERM or SIGKILL. Then it checks what
// docs/profile.md promises ("What survives what"):
//   - no process of the round outlives its glueprof (each carries the round's tag in its
//     environment; /proc is searched for it);
//   - each glueprof ends by itself with the exit code its fate calls for (0, 130, 143; SIGKILL:
//     killed), and on failure with one line;
//   - the database passes SQLite's integrity check, holds no run still `running`, and the runs of
//     every launch that ended 0;
//   - after one more `profile` of the database (which merges what killed launches left), no side
//     file is left beside it.
// Usage:
//   glueprof_profile_fuzz --cli PATH --python PATH --work DIR [--seconds 60] [--seed 1] [--verbose]
// Exit 0 when every round kept the promise, 1 with the findings listed, 2 for a usage error.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/HarnessOptions.h"
#include "tests/support/SqliteIntegrity.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    std::string cli;
    std::string python;
    std::string work;
    double seconds = 60.0;
    std::uint64_t seed = 1;
    bool verbose = false;
};

enum class Fate { kNone, kSigint, kSigterm, kSigkill };
const char* const kFateNames[] = {"none", "SIGINT", "SIGTERM", "SIGKILL"};
enum class Shape { kPython, kShell, kAbExec };
const char* const kShapeNames[] = {"profile python", "profile sh", "ab --exec"};

struct Launch {
    Shape shape = Shape::kPython;
    Fate fate = Fate::kNone;
    int delayMs = 0;
    pid_t pid = 0;
    int status = 0;
    bool timedOut = false;
    std::string err;
};

std::string slurp(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

long long queryOne(const fs::path& db, const char* sql) {
    sqlite3* handle = nullptr;
    long long value = -1;
    if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(handle, sql, -1, &statement, nullptr) == SQLITE_OK &&
            sqlite3_step(statement) == SQLITE_ROW)
            value = sqlite3_column_int64(statement, 0);
        sqlite3_finalize(statement);
    }
    sqlite3_close(handle);
    return value;
}

// The training script and the shell script that starts it, in the round's directory.
void writePrograms(const fs::path& dir, const Options& o) {
    std::ofstream(dir / "train.py")
        << "import os, time, torch\n"
           "m = torch.nn.Linear(8, 8); o = torch.optim.SGD(m.parameters(), lr=0.1)\n"
           "for i in range(int(os.environ.get('STEPS', '20'))):\n"
           "    m(torch.randn(4, 8)).sum().backward(); o.step(); o.zero_grad()\n"
           "    time.sleep(0.02)\n";
    std::ofstream(dir / "run.sh") << "#!/bin/sh\n"
                                  << o.python << " " << (dir / "train.py").string() << "\n";
    fs::permissions(dir / "run.sh", fs::perms::owner_all);
}

std::vector<std::string> argvOf(const Launch& l, const fs::path& dir, const Options& o) {
    const std::string db = (dir / "shared.sqlite").string();
    const std::string train = (dir / "train.py").string();
    switch (l.shape) {
        case Shape::kPython:
            return {o.cli, "profile", "--db", db, "--", o.python, train};
        case Shape::kShell:
            return {o.cli, "profile", "--db", db, "--", (dir / "run.sh").string()};
        case Shape::kAbExec:
            return {o.cli,
                    "ab",
                    "--exec",
                    o.python + " " + train,
                    "--baseline-env",
                    "ARM=a",
                    "--optimized-env",
                    "ARM=b",
                    "--repeats",
                    "1",
                    "--db",
                    db};
    }
    return {};
}

pid_t start(const std::vector<std::string>& argv, const fs::path& err, const std::string& tag) {
    std::cout.flush();  // what is buffered is not the child's to write
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    ::setpgid(0, 0);  // as a terminal's job: glueprof and what it starts, apart from the fuzzer
    ::setenv("GLUEPROF_FUZZ_ROUND", tag.c_str(), 1);
    ::freopen(err.c_str(), "w", stderr);
    ::freopen("/dev/null", "w", stdout);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
}

// The processes whose environment carries the round's tag and that have not ended.
std::vector<int> taggedProcesses(const std::string& tag) {
    std::vector<int> pids;
    const std::string needle = "GLUEPROF_FUZZ_ROUND=" + tag + '\0';
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const int pid = std::atoi(entry.path().filename().c_str());
        if (pid <= 0) continue;
        const std::string environ = slurp(entry.path() / "environ") + '\0';
        if (environ.find(needle) == std::string::npos) continue;
        const std::string stat = slurp(entry.path() / "stat");
        const auto close = stat.rfind(')');
        if (close != std::string::npos && stat.size() > close + 2 && stat[close + 2] == 'Z')
            continue;
        pids.push_back(pid);
    }
    return pids;
}

std::string judge(const std::vector<Launch>& launches, const fs::path& dir, const std::string& tag,
                  const Options& o) {
    // Orphans: give the watchers a moment (a pidfd wakes them at once; SIGTERM'd leftovers 5 s).
    std::vector<int> left;
    for (int i = 0; i < 100; ++i) {
        left = taggedProcesses(tag);
        if (left.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!left.empty()) {
        for (int pid : left) ::kill(pid, SIGKILL);
        return "process " + std::to_string(left.front()) + " outlived its glueprof";
    }
    for (const Launch& l : launches) {
        const std::string who = std::string(kShapeNames[static_cast<int>(l.shape)]) + " (" +
                                kFateNames[static_cast<int>(l.fate)] + ")";
        if (l.timedOut) return who + " did not end";
        if (l.fate == Fate::kSigkill) {
            if (!(WIFSIGNALED(l.status) && WTERMSIG(l.status) == SIGKILL) &&
                !(WIFEXITED(l.status) && WEXITSTATUS(l.status) == 0))
                return who + " ended otherwise than killed or done";
            continue;
        }
        // A signal before the program started or after it ended (no interruption scope then)
        // ends glueprof as the signal does.
        const int sent = l.fate == Fate::kSigint ? SIGINT : l.fate == Fate::kSigterm ? SIGTERM : 0;
        if (WIFSIGNALED(l.status) && WTERMSIG(l.status) == sent) continue;
        if (!WIFEXITED(l.status))
            return who + " died of signal " + std::to_string(WTERMSIG(l.status));
        const int code = WEXITSTATUS(l.status);
        // A signal that came after the program ended leaves the exit 0; before, 130 or 143.
        const int expected = l.fate == Fate::kSigint ? 130 : l.fate == Fate::kSigterm ? 143 : 0;
        if (code != 0 && code != expected)
            return who + " exited " + std::to_string(code) + ": " + l.err;
        // profile passes the program's own ending through (it printed what it had to say);
        // ab --exec says in one line that it was interrupted and stored nothing.
        if (code != 0 && l.shape == Shape::kAbExec) {
            std::stringstream lines(l.err);
            int glueprofLines = 0;
            for (std::string line; std::getline(lines, line);)
                glueprofLines += line.rfind("glueprof: ", 0) == 0 ? 1 : 0;
            if (glueprofLines == 0) return who + " failed without saying why: " + l.err;
        }
    }
    const fs::path db = dir / "shared.sqlite";
    // One more profile merges what killed launches left beside the database.
    const pid_t last =
        start({o.cli, "profile", "--db", db.string(), "--", o.python, (dir / "train.py").string()},
              dir / "last.err", tag + "-last");
    int status = 0;
    ::waitpid(last, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return "the profile after the round failed: " + slurp(dir / "last.err");
    const std::string integrity = glueprof::testing::sqliteIntegrity(db.string());
    if (integrity != "ok") return "integrity check: " + integrity;
    if (queryOne(db, "SELECT count(*) FROM runs WHERE status = 'running'") != 0)
        return "a run is still 'running'";
    long long expectedRuns = 1;  // the last profile's
    for (const Launch& l : launches) {
        if (WIFEXITED(l.status) && WEXITSTATUS(l.status) == 0 && l.fate != Fate::kSigkill)
            expectedRuns += l.shape == Shape::kAbExec ? 2 : 1;
    }
    const long long runs = queryOne(db, "SELECT count(*) FROM runs");
    if (runs < expectedRuns)
        return "runs " + std::to_string(runs) + ", at least " + std::to_string(expectedRuns) +
               " expected";
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("shared.sqlite.", 0) == 0) return "a side file was left: " + name;
    }
    return "";
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    glueprof::testing::HarnessOptions options;
    options.valued = {
        {"--cli", [&](const std::string& v) { o.cli = v; }},
        {"--python", [&](const std::string& v) { o.python = v; }},
        {"--work", [&](const std::string& v) { o.work = v; }},
        {"--seconds", [&](const std::string& v) { o.seconds = std::stod(v); }},
        {"--seed", [&](const std::string& v) { o.seed = std::stoull(v); }},
    };
    options.switches = {{"--verbose", [&] { o.verbose = true; }}};
    options.parse("profile-fuzz", argc, argv);
    if (o.cli.empty() || o.python.empty() || o.work.empty()) {
        std::cerr << "profile-fuzz: --cli, --python and --work are required\n";
        return 2;
    }
    o.cli = fs::absolute(o.cli).string();
    o.work = fs::absolute(o.work).string();
    const auto started = Clock::now();
    std::vector<std::string> findings;
    long long round = 0;
    for (; std::chrono::duration<double>(Clock::now() - started).count() < o.seconds; ++round) {
        std::mt19937_64 rng(o.seed * 1000003ULL + static_cast<std::uint64_t>(round));
        const fs::path dir = fs::path(o.work) / ("round-" + std::to_string(round));
        fs::remove_all(dir);
        fs::create_directories(dir);
        writePrograms(dir, o);
        const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(round);
        std::vector<Launch> launches(1 + rng() % 3);
        for (std::size_t i = 0; i < launches.size(); ++i) {
            Launch& l = launches[i];
            l.shape = static_cast<Shape>(rng() % 3);
            l.fate = static_cast<Fate>(rng() % 4);
            l.delayMs = 200 + static_cast<int>(rng() % 4000);
            l.pid = start(argvOf(l, dir, o), dir / ("err-" + std::to_string(i)), tag);
        }
        const auto roundStart = Clock::now();
        std::vector<bool> signalled(launches.size(), false), done(launches.size(), false);
        for (std::size_t remaining = launches.size(); remaining > 0;) {
            const auto elapsedMs =
                std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - roundStart)
                    .count();
            for (std::size_t i = 0; i < launches.size(); ++i) {
                Launch& l = launches[i];
                if (done[i]) continue;
                if (!signalled[i] && l.fate != Fate::kNone && elapsedMs >= l.delayMs) {
                    const int signal = l.fate == Fate::kSigint    ? SIGINT
                                       : l.fate == Fate::kSigterm ? SIGTERM
                                                                  : SIGKILL;
                    ::kill(l.pid, signal);
                    signalled[i] = true;
                }
                if (::waitpid(l.pid, &l.status, WNOHANG) == l.pid) {
                    done[i] = true;
                    --remaining;
                    l.err = slurp(dir / ("err-" + std::to_string(i)));
                } else if (elapsedMs > 180'000) {
                    ::kill(l.pid, SIGKILL);
                    ::waitpid(l.pid, &l.status, 0);
                    l.timedOut = true;
                    done[i] = true;
                    --remaining;
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        const std::string problem = judge(launches, dir, tag, o);
        std::string shapes;
        for (const Launch& l : launches) {
            shapes += (shapes.empty() ? "" : ", ") +
                      std::string(kShapeNames[static_cast<int>(l.shape)]) + " " +
                      kFateNames[static_cast<int>(l.fate)] + "@" + std::to_string(l.delayMs) + "ms";
        }
        if (o.verbose || !problem.empty())
            std::cout << "round " << round << " [" << shapes << "]"
                      << (problem.empty() ? " ok" : "\n  FINDING: " + problem) << "\n";
        if (problem.empty()) {
            fs::remove_all(dir);
        } else {
            findings.push_back("round " + std::to_string(round) + " [" + shapes + "]: " + problem);
        }
    }
    std::printf("profile-fuzz: seed %llu: %lld rounds in %.1f s; %zu findings\n",
                static_cast<unsigned long long>(o.seed), round,
                std::chrono::duration<double>(Clock::now() - started).count(), findings.size());
    for (const std::string& f : findings) std::printf("  %s\n", f.c_str());
    return findings.empty() ? 0 : 1;
}
