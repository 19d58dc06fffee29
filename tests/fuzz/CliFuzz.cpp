// A fuzz harness over the real `glueprof` and `glueprof-gui` binaries: hostile inputs made by
// mutating real ones (a recorded trace database, a baseline, a pipeline cost file, a Kineto trace,
// an Nsight Systems export, a GUI script) are handed to the commands that read them, and every
// run must keep the CLI's promise (docs/cli.md):
//   - it ends by itself (no signal, no hang) with an exit code in {0, 1, 2, 3};
//   - on failure, stderr ends with one line "glueprof: ..." (the only one), with no "internal
//   error"
//     and no sanitizer report;
//   - on failure, the working directory is byte for byte as before: no new file, nothing changed.
// Case N is made from --seed and N alone, so `--seed S --case N` reruns one finding; a finding's
// inputs are kept in WORK/findings/case-N with the command line.
// With --concurrent N, each round instead starts N processes of mixed commands at once on one
// database (writers: ab, run, import of a Kineto and an Nsight trace, simulate; readers: list,
// report, export, check) and then checks the database: every process ended by itself with its
// expected exit code, the file passes SQLite's integrity check, every writer's runs are there and
// complete, every event's lane and name resolve within its own run, and no temporary is left.
// Usage:
//   glueprof_cli_fuzz --cli PATH [--gui PATH] --source DIR --work DIR [--seconds 30] [--seed 1]
//                     [--case N] [--concurrent N] [--verbose]
// Exit 0 when every case kept the promise, 1 with the findings listed, 2 for a usage error.
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
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
    std::string gui;
    std::string source;
    std::string work;
    double seconds = 30.0;
    std::uint64_t seed = 1;
    long long onlyCase = -1;
    int concurrent = 0;  // > 0: rounds of that many processes on one database
    bool verbose = false;
};

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeAll(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string gunzip(const fs::path& path) {
    gzFile file = gzopen(path.c_str(), "rb");
    if (file == nullptr) return "";
    std::string out;
    char block[1 << 16];
    int n = 0;
    while ((n = gzread(file, block, sizeof block)) > 0) out.append(block, static_cast<size_t>(n));
    gzclose(file);
    return out;
}

// Every file under DIR with its size and a hash of its bytes.
std::map<std::string, std::pair<std::uintmax_t, std::size_t>> snapshot(const fs::path& dir) {
    std::map<std::string, std::pair<std::uintmax_t, std::size_t>> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (!entry.is_regular_file()) {
            files[entry.path().string()] = {0, 0};
            continue;
        }
        files[entry.path().string()] = {entry.file_size(),
                                        std::hash<std::string>()(readAll(entry.path()))};
    }
    return files;
}

struct Outcome {
    int exitCode = -1;
    int signal = 0;
    bool timedOut = false;
    std::string err;
};

// Runs ARGV in DIR, its stdout and stderr going to files beside DIR (so DIR holds only what the
// command wrote), killed with its process group after TIMEOUT seconds.
Outcome runIn(const fs::path& dir, const std::vector<std::string>& argv, double timeout) {
    const fs::path out = dir.string() + ".out";
    const fs::path err = dir.string() + ".err";
    const pid_t child = ::fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) {
        ::setpgid(0, 0);  // its own group: a timeout kills xvfb-run's children too
        if (::chdir(dir.c_str()) != 0) ::_exit(126);
        const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(126);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        ::_exit(127);
    }
    ::setpgid(child, child);  // also here: no race with the kill below
    Outcome o;
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout);
    int status = 0;
    while (::waitpid(child, &status, WNOHANG) == 0) {
        if (Clock::now() > deadline) {
            ::kill(-child, SIGKILL);
            ::waitpid(child, &status, 0);
            o.timedOut = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (WIFEXITED(status)) o.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
    o.err = readAll(err);
    return o;
}

// ---- mutations ------------------------------------------------------------------------------

using Rng = std::mt19937_64;

std::size_t below(Rng& rng, std::size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
}

std::string mutateBytes(std::string bytes, Rng& rng, std::string& how) {
    if (bytes.empty()) return bytes;
    switch (below(rng, 4)) {
        case 0: {
            const std::size_t flips = 1 + below(rng, 16);
            for (std::size_t i = 0; i < flips; ++i) {
                bytes[below(rng, bytes.size())] ^= static_cast<char>(1 + below(rng, 255));
            }
            how = std::to_string(flips) + " byte flips";
            break;
        }
        case 1: {
            const std::size_t size = below(rng, bytes.size());
            bytes.resize(size);
            how = "truncated to " + std::to_string(size) + " bytes";
            break;
        }
        case 2: {
            const std::size_t at = below(rng, bytes.size());
            const std::size_t n = 1 + below(rng, 4096);
            const std::size_t end = std::min(bytes.size(), at + n);
            std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                      bytes.begin() + static_cast<std::ptrdiff_t>(end), '\0');
            how = "zeroed " + std::to_string(end - at) + " bytes at " + std::to_string(at);
            break;
        }
        default: {
            const std::size_t at = below(rng, bytes.size());
            std::string junk(1 + below(rng, 64), '\0');
            for (char& c : junk) c = static_cast<char>(below(rng, 256));
            bytes.insert(at, junk);
            how = "inserted " + std::to_string(junk.size()) + " random bytes";
            break;
        }
    }
    return bytes;
}

// A hostile JSON value: wrong types, extremes, invalid UTF-8, deep or long.
nlohmann::json hostileValue(Rng& rng) {
    switch (below(rng, 14)) {
        case 0:
            return nullptr;
        case 1:
            return -1;
        case 2:
            return 0;
        case 3:
            return 9223372036854775807LL;
        case 4:
            return 18446744073709551615ULL;
        case 5:
            return 1e308;
        case 6:
            return -1e-300;
        case 7:
            return "text";
        case 8:
            return std::string("\xff\xfe bad utf-8 \xc0\xaf");
        case 9:
            return std::string(100000, 'x');
        case 10:
            return nlohmann::json::array();
        case 11:
            return nlohmann::json::object();
        case 12: {
            nlohmann::json deep = 1;
            for (int i = 0; i < 300; ++i) deep = nlohmann::json::array({deep});
            return deep;
        }
        default:
            return true;
    }
}

// Replaces, deletes or adds one node somewhere in J.
void mutateJson(nlohmann::json& j, Rng& rng, std::string& how) {
    nlohmann::json* node = &j;
    std::string where = "$";
    for (int depth = 0; depth < 6 && (node->is_object() || node->is_array()) && !node->empty();
         ++depth) {
        if (below(rng, 3) == 0) break;
        if (node->is_object()) {
            auto it = node->begin();
            std::advance(it, static_cast<std::ptrdiff_t>(below(rng, node->size())));
            where += "." + it.key();
            node = &it.value();
        } else {
            const std::size_t i = below(rng, node->size());
            where += "[" + std::to_string(i) + "]";
            node = &(*node)[i];
        }
    }
    switch (below(rng, 3)) {
        case 0:
            *node = hostileValue(rng);
            how = "replaced " + where;
            break;
        case 1:
            if (node->is_object() && !node->empty()) {
                auto it = node->begin();
                std::advance(it, static_cast<std::ptrdiff_t>(below(rng, node->size())));
                how = "deleted " + where + "." + it.key();
                node->erase(it);
            } else if (node->is_array() && !node->empty()) {
                node->erase(node->begin() + static_cast<std::ptrdiff_t>(below(rng, node->size())));
                how = "deleted an element of " + where;
            } else {
                *node = hostileValue(rng);
                how = "replaced " + where;
            }
            break;
        default:
            if (node->is_object()) {
                (*node)["\xff" + std::to_string(below(rng, 9))] = hostileValue(rng);
                how = "added a key to " + where;
            } else {
                *node = nlohmann::json::array({*node, hostileValue(rng)});
                how = "wrapped " + where;
            }
    }
}

std::string mutateJsonText(const std::string& text, Rng& rng, std::string& how) {
    if (below(rng, 4) == 0) return mutateBytes(text, rng, how);
    nlohmann::json j = nlohmann::json::parse(text);
    const std::size_t edits = 1 + below(rng, 3);
    std::string all;
    for (std::size_t i = 0; i < edits; ++i) {
        std::string one;
        mutateJson(j, rng, one);
        all += (all.empty() ? "" : "; ") + one;
    }
    how = all;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Edits a glueprof database the way a hand, another tool or a newer version might.
const std::vector<std::string> kHostileSql = {
    "PRAGMA user_version=99",
    "PRAGMA user_version=1",
    "PRAGMA user_version=0",
    "DROP TABLE events",
    "DROP TABLE strings",
    "DROP TABLE steps",
    "DROP TABLE lanes",
    "DROP TABLE counters",
    "DROP TABLE diagnostics",
    "ALTER TABLE events RENAME COLUMN start_ns TO begin_ns",
    "ALTER TABLE runs DROP COLUMN host",
    "UPDATE events SET start_ns = 9223372036854775807 WHERE rowid % 7 = 0",
    "UPDATE events SET end_ns = -5 WHERE rowid % 3 = 0",
    "UPDATE events SET name_id = 987654 WHERE rowid % 5 = 0",
    "UPDATE events SET lane_id = 9999 WHERE rowid % 4 = 0",
    "UPDATE events SET kind = 77, category = -1",
    "UPDATE events SET step = 2147483647 WHERE rowid % 2 = 0",
    "UPDATE events SET step = -2147483648",
    "UPDATE events SET start_ns = 'text'",
    "UPDATE events SET bytes = -1, correlation = -9",
    "DELETE FROM events WHERE rowid % 2 = 0",
    "UPDATE runs SET status = 'weird'",
    "UPDATE runs SET status = 'running'",
    "UPDATE runs SET config_json = '{not json'",
    "UPDATE runs SET toggles_json = '[1,2'",
    "UPDATE runs SET environment_json = '[]'",
    "UPDATE runs SET label = CAST(X'FFFE41' AS TEXT)",
    "UPDATE runs SET ab_group = 999",
    "UPDATE runs SET arm = 'sideways'",
    "UPDATE runs SET kind = 'martian'",
    "UPDATE runs SET world_size = -1, rank = 5",
    "UPDATE runs SET id = id + 100",
    "UPDATE runs SET toggle = 'no_such_toggle'",
    "UPDATE runs SET started_unix_ns = -1, ended_unix_ns = 0",
    "DELETE FROM runs WHERE id = 1",
    "UPDATE strings SET value = CAST(X'C0AF' AS TEXT) WHERE id % 2 = 0",
    "DELETE FROM strings",
    "DELETE FROM steps",
    "UPDATE steps SET end_ns = start_ns - 1",
    "UPDATE steps SET loss = 1e308 * 10",
    "UPDATE steps SET loss = 'nan'",
    "UPDATE steps SET block = -1, warmup = 7",
    "UPDATE steps SET step = step * 1000003",
    "UPDATE steps SET tokens = -100",
    "UPDATE counters SET value = -9223372036854775807",
    "UPDATE counters SET name = ''",
    "UPDATE diagnostics SET value = -5",
    "DELETE FROM lanes",
    "UPDATE lanes SET kind = 42, device = -7",
    "CREATE TABLE extra (x)",
};

std::string editDatabase(const fs::path& file, Rng& rng) {
    sqlite3* db = nullptr;
    if (sqlite3_open(file.c_str(), &db) != SQLITE_OK) {
        sqlite3_close(db);
        return "unopenable";
    }
    sqlite3_exec(db, "PRAGMA ignore_check_constraints=1", nullptr, nullptr, nullptr);
    const std::size_t edits = 1 + below(rng, 3);
    std::string how;
    for (std::size_t i = 0; i < edits; ++i) {
        const std::string& sql = kHostileSql[below(rng, kHostileSql.size())];
        sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
        how += (how.empty() ? "" : "; ") + sql;
    }
    sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    for (const char* suffix : {"-wal", "-shm"}) fs::remove(file.string() + suffix);
    return how;
}

// A GUI script of random lines, good and bad. (`open NEW` is left out: the GUI creates a new
// database there by design, for its Run panel.)
std::string hostileScript(Rng& rng, std::string& how) {
    const std::vector<std::string> lines = {"select 1 2",
                                            "select 2 1",
                                            "select 99999999999 1",
                                            "select -1",
                                            "select x",
                                            "show Timeline",
                                            "show Dashboard",
                                            "show \xff\xfe",
                                            "show",
                                            "align 1",
                                            "align -1",
                                            "align 99999999999",
                                            "align",
                                            "highlight aten::mm",
                                            "highlight \xc0\xaf",
                                            "open trace.sqlite",
                                            "open .",
                                            "open /nonexistent/x.sqlite",
                                            "open s.script",
                                            "wait",
                                            "# comment",
                                            "",
                                            "run tiny packed_cache 0 1 1",
                                            "run tiny nope 1 1 1",
                                            "run nope packed_cache 1 0 1",
                                            "run tiny packed_cache -5 1 1",
                                            std::string(5000, 'a')};
    std::string script;
    const std::size_t n = 1 + below(rng, 6);
    for (std::size_t i = 0; i < n; ++i) script += lines[below(rng, lines.size())] + "\n";
    how = std::to_string(n) + " random lines";
    return below(rng, 5) == 0 ? mutateBytes(script, rng, how) : script;
}

// ---- cases ----------------------------------------------------------------------------------

struct Seeds {
    fs::path trace;     // a recorded A/B plus an imported trace, checkpointed
    fs::path baseline;  // check --update-baseline of it
    fs::path costs;     // assets/pipeline/roundpipe-1.7b.json
    fs::path kineto;    // a torch.profiler trace (plain JSON)
    fs::path nsys;      // an nsys export (SQLite)
};

struct Case {
    std::string kind;
    std::string mutation;
    std::vector<std::string> argv;
    double timeout = 60.0;
    std::vector<int> allowedExits = {0, 1, 2, 3};
};

Case makeCase(const Options& o, const Seeds& seeds, const fs::path& dir, Rng& rng) {
    Case c;
    const std::string cli = o.cli;
    const bool gui = !o.gui.empty();
    const std::size_t kinds = gui ? 7 : 6;
    switch (below(rng, kinds)) {
        case 0:
        case 1: {  // a damaged database under a reading command
            c.kind = "database";
            fs::copy_file(seeds.trace, dir / "trace.sqlite");
            fs::copy_file(seeds.baseline, dir / "baseline.json");
            if (below(rng, 2) == 0) {
                c.mutation = editDatabase(dir / "trace.sqlite", rng);
            } else {
                writeAll(dir / "trace.sqlite",
                         mutateBytes(readAll(dir / "trace.sqlite"), rng, c.mutation));
            }
            const std::vector<std::vector<std::string>> commands = {
                {cli, "list", "--db", "trace.sqlite"},
                {cli, "list", "--db", "trace.sqlite", "--json"},
                {cli, "report", "--db", "trace.sqlite", "--out", "r.html"},
                {cli, "report", "--db", "trace.sqlite", "--format", "md", "--out", "r.md"},
                {cli, "report", "--db", "trace.sqlite", "--format", "json", "--out", "r.json"},
                {cli, "export", "--db", "trace.sqlite", "--run", "1", "--out", "t.json"},
                {cli, "export", "--db", "trace.sqlite", "--format", "csv", "--out", "t.csv"},
                {cli, "advise", "--db", "trace.sqlite", "--json"},
                {cli, "compare", "--db", "trace.sqlite", "--runs", "1,2"},
                {cli, "check", "--db", "trace.sqlite", "--baseline", "baseline.json"},
                {cli, "run", "--preset", "tiny", "--steps", "1", "--warmup", "0", "--db",
                 "trace.sqlite"}};
            c.argv = commands[below(rng, commands.size())];
            break;
        }
        case 2: {  // a cost file
            c.kind = "costs";
            writeAll(dir / "costs.json", mutateJsonText(readAll(seeds.costs), rng, c.mutation));
            c.argv = {cli, "simulate", "--costs", "costs.json", "--db", "sim.sqlite"};
            if (below(rng, 2) == 0) c.argv.push_back("--predict");
            break;
        }
        case 3: {  // a baseline
            c.kind = "baseline";
            fs::copy_file(seeds.trace, dir / "trace.sqlite");
            writeAll(dir / "baseline.json",
                     mutateJsonText(readAll(seeds.baseline), rng, c.mutation));
            c.argv = {cli, "check", "--db", "trace.sqlite", "--baseline", "baseline.json"};
            break;
        }
        case 4: {  // a torch.profiler trace
            c.kind = "kineto";
            writeAll(dir / "trace.json", mutateJsonText(readAll(seeds.kineto), rng, c.mutation));
            c.argv = {cli, "import", "trace.json", "--db", "imported.sqlite"};
            break;
        }
        case 5: {  // an Nsight Systems export
            c.kind = "nsys";
            writeAll(dir / "report.sqlite", readAll(seeds.nsys));
            if (below(rng, 2) == 0) {
                sqlite3* db = nullptr;
                sqlite3_open((dir / "report.sqlite").c_str(), &db);
                const std::vector<std::string> edits = {
                    "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL",
                    "DROP TABLE StringIds",
                    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 100",
                    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = 999999",
                    "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = NULL",
                    "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -1, copyKind = 99",
                    "UPDATE StringIds SET value = CAST(X'FF' AS TEXT)",
                    "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME COLUMN start TO t0",
                    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'x'",
                    "DELETE FROM TARGET_INFO_SESSION_START_TIME"};
                c.mutation = edits[below(rng, edits.size())];
                sqlite3_exec(db, c.mutation.c_str(), nullptr, nullptr, nullptr);
                sqlite3_close(db);
            } else {
                writeAll(dir / "report.sqlite",
                         mutateBytes(readAll(dir / "report.sqlite"), rng, c.mutation));
            }
            c.argv = {cli, "import", "report.sqlite", "--db", "imported.sqlite"};
            break;
        }
        default: {  // a GUI script in a real window under Xvfb
            c.kind = "gui-script";
            fs::copy_file(seeds.trace, dir / "trace.sqlite");
            writeAll(dir / "s.script", hostileScript(rng, c.mutation));
            c.argv = {"xvfb-run",
                      "-a",
                      "-s",
                      "-screen 0 800x600x24",
                      o.gui,
                      "--db",
                      "trace.sqlite",
                      "--script",
                      "s.script",
                      "--frames",
                      "4"};
            c.allowedExits = {0, 2};
            break;
        }
    }
    return c;
}

// What is wrong with OUTCOME, "" when the promise held.
std::string judge(const Case& c, const Outcome& outcome,
                  const std::map<std::string, std::pair<std::uintmax_t, std::size_t>>& before,
                  const fs::path& dir) {
    if (outcome.timedOut) return "did not end within " + std::to_string(c.timeout) + " s";
    if (outcome.signal != 0) return "ended by signal " + std::to_string(outcome.signal);
    if (std::find(c.allowedExits.begin(), c.allowedExits.end(), outcome.exitCode) ==
        c.allowedExits.end()) {
        return "exit code " + std::to_string(outcome.exitCode);
    }
    for (const char* bad : {"internal error", "AddressSanitizer",
                            "runtime error:", "terminate called", "Assertion", "LeakSanitizer"}) {
        if (outcome.err.find(bad) != std::string::npos)
            return std::string("stderr has '") + bad + "'";
    }
    // Exit 3 is `check`'s verdict (a regression), printed on stdout like a pass.
    if (outcome.exitCode == 0 || outcome.exitCode == 3) return "";
    // One error line, the last one; lines before it may be notices (GPU capture, Xvfb).
    std::vector<std::string> lines;
    std::stringstream err(outcome.err);
    for (std::string line; std::getline(err, line);) {
        if (!line.empty()) lines.push_back(line);
    }
    const std::string prefix = c.kind == "gui-script" ? "glueprof-gui: " : "glueprof: ";
    int errorLines = 0;
    for (const std::string& line : lines) errorLines += line.rfind(prefix, 0) == 0 ? 1 : 0;
    if (lines.empty() || lines.back().rfind(prefix, 0) != 0 || errorLines != 1) {
        return "stderr is not one '" + prefix + "...' line at its end";
    }
    const auto after = snapshot(dir);
    std::string changed;
    for (const auto& [file, stamp] : after) {
        const auto was = before.find(file);
        if (was == before.end() || was->second != stamp) {
            changed += " " + fs::path(file).filename().string() +
                       (was == before.end() ? " (new)" : " (changed)");
        }
    }
    for (const auto& [file, stamp] : before) {
        if (after.count(file) == 0) changed += " " + fs::path(file).filename().string() + " (gone)";
    }
    return changed.empty() ? "" : "failed but left the directory changed:" + changed;
}

std::string joined(const std::vector<std::string>& argv) {
    std::string text;
    for (const std::string& a : argv) {
        const bool quote = a.find_first_of(" '\"") != std::string::npos;
        text += (text.empty() ? "" : " ") + (quote ? "'" + a + "'" : a);
    }
    return text;
}

bool hasProgram(const std::string& name) {
    return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

Seeds makeSeeds(const Options& o) {
    const fs::path dir = fs::path(o.work) / "seeds";
    fs::remove_all(dir);
    fs::create_directories(dir);
    Seeds s;
    s.trace = dir / "trace.sqlite";
    s.baseline = dir / "baseline.json";
    s.costs = fs::path(o.source) / "assets/pipeline/roundpipe-1.7b.json";
    s.kineto = dir / "kineto.json";
    s.nsys = dir / "nsys.sqlite";
    const fs::path fixtures = fs::path(o.source) / "tests/fixtures/import";
    writeAll(s.kineto, gunzip(fixtures / "kineto/hta-event_sync_trace.json.gz"));
    writeAll(s.nsys, gunzip(fixtures / "nsys/test-cuda-report1.sqlite.gz"));
    const std::vector<std::vector<std::string>> make = {
        {o.cli, "ab", "--preset", "tiny", "--opt", "packed_cache", "--steps", "1", "--warmup", "1",
         "--repeats", "3", "--db", "trace.sqlite"},
        {o.cli, "import", "kineto.json", "--db", "trace.sqlite"},
        {o.cli, "check", "--db", "trace.sqlite", "--baseline", "baseline.json",
         "--update-baseline"}};
    for (const auto& argv : make) {
        const Outcome out = runIn(dir, argv, 300);
        if (out.exitCode != 0) {
            throw std::runtime_error("making the seeds failed: " + joined(argv) + ": " + out.err);
        }
    }
    for (const char* suffix : {"-wal", "-shm"}) fs::remove(s.trace.string() + suffix);
    return s;
}

// ---- concurrency --------------------------------------------------------------------------------

// The first column of the first row of SQL on DB, or -1 when it cannot be read.
long long queryOne(const fs::path& db, const std::string& sql) {
    sqlite3* handle = nullptr;
    long long value = -1;
    if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            value = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(handle);
    return value;
}

// SQLite's integrity check: its first real finding, or "ok" (tests/support/SqliteIntegrity.h).
std::string integrityOf(const fs::path& db) {
    return glueprof::testing::sqliteIntegrity(db.string());
}

struct ConcurrentCommand {
    std::string kind;
    std::vector<std::string> argv;  // run in the round's directory, on shared.sqlite
    long long runsAdded = 0;        // measured once on an empty database
    std::vector<int> exits = {0};
};

// The mixed commands of a round, each with the number of runs it adds (measured here, once).
std::vector<ConcurrentCommand> concurrentCommands(const Options& o, const Seeds& s) {
    std::vector<ConcurrentCommand> commands = {
        {"ab",
         {o.cli, "ab", "--preset", "tiny", "--opt", "packed_cache", "--steps", "1", "--warmup", "1",
          "--repeats", "1", "--db", "shared.sqlite"}},
        {"run",
         {o.cli, "run", "--preset", "tiny", "--steps", "1", "--warmup", "0", "--db",
          "shared.sqlite"}},
        {"import-kineto", {o.cli, "import", s.kineto.string(), "--db", "shared.sqlite"}},
        {"import-nsys", {o.cli, "import", s.nsys.string(), "--db", "shared.sqlite"}},
        {"simulate", {o.cli, "simulate", "--costs", s.costs.string(), "--db", "shared.sqlite"}},
        {"list", {o.cli, "list", "--db", "shared.sqlite"}},
        {"report",
         {o.cli, "report", "--db", "shared.sqlite", "--format", "md", "--out", "report.md"}},
        {"export", {o.cli, "export", "--db", "shared.sqlite", "--run", "1", "--out", "run1.json"}},
        {"check",
         {o.cli, "check", "--db", "shared.sqlite", "--baseline", s.baseline.string()},
         0,
         {0, 3}},
    };
    const fs::path dir = fs::path(o.work) / "calibration";
    for (ConcurrentCommand& c : commands) {
        if (c.kind == "list" || c.kind == "report" || c.kind == "export" || c.kind == "check")
            continue;  // readers add nothing
        fs::remove_all(dir);
        fs::create_directories(dir);
        const Outcome out = runIn(dir, c.argv, 300);
        if (out.exitCode != 0)
            throw std::runtime_error("calibrating " + c.kind + " failed: " + out.err);
        c.runsAdded = queryOne(dir / "shared.sqlite", "SELECT count(*) FROM runs");
    }
    fs::remove_all(dir);
    return commands;
}

// What is wrong with the round's database and processes, "" when nothing.
std::string judgeRound(const fs::path& dir, long long runsBefore, long long runsAdded,
                       const std::vector<const ConcurrentCommand*>& ran,
                       const std::vector<Outcome>& outcomes) {
    for (std::size_t i = 0; i < ran.size(); ++i) {
        const Outcome& out = outcomes[i];
        const std::vector<int>& ok = ran[i]->exits;
        if (out.timedOut) return ran[i]->kind + " did not end by itself";
        if (out.signal != 0) return ran[i]->kind + " died of signal " + std::to_string(out.signal);
        if (std::find(ok.begin(), ok.end(), out.exitCode) == ok.end())
            return ran[i]->kind + " exited " + std::to_string(out.exitCode) + ": " + out.err;
        if (out.err.find("internal error") != std::string::npos)
            return ran[i]->kind + ": " + out.err;
    }
    const fs::path db = dir / "shared.sqlite";
    const std::string integrity = integrityOf(db);
    if (integrity != "ok") return "integrity check: " + integrity;
    const long long runs = queryOne(db, "SELECT count(*) FROM runs");
    if (runs != runsBefore + runsAdded)
        return "runs " + std::to_string(runs) + ", expected " +
               std::to_string(runsBefore + runsAdded);
    if (queryOne(db, "SELECT count(*) FROM runs WHERE status <> 'complete'") != 0)
        return "a run is not complete";
    if (queryOne(db,
                 "SELECT count(*) FROM events e LEFT JOIN lanes l ON l.id = e.lane_id "
                 "WHERE l.id IS NULL OR l.run_id <> e.run_id") != 0)
        return "an event's lane is missing or belongs to another run";
    if (queryOne(db,
                 "SELECT count(*) FROM events e LEFT JOIN strings s ON s.id = e.name_id "
                 "WHERE s.id IS NULL") != 0)
        return "an event's name is missing";
    if (queryOne(db, "SELECT count(*) - count(DISTINCT value) FROM strings") != 0)
        return "a name is stored twice";
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().filename().string().find(".glueprof-") != std::string::npos)
            return "a temporary was left: " + entry.path().filename().string();
    }
    return "";
}

int runConcurrentRounds(const Options& o, const Seeds& seeds, double seedSeconds) {
    std::vector<ConcurrentCommand> commands;
    try {
        commands = concurrentCommands(o, seeds);
    } catch (const std::exception& e) {
        std::cerr << "cli-fuzz: " << e.what() << "\n";
        return 2;
    }
    const auto loopStart = Clock::now();
    std::vector<std::string> findings;
    std::map<std::string, int> byKind;
    long long round = 0;
    for (;; ++round) {
        if (std::chrono::duration<double>(Clock::now() - loopStart).count() >= o.seconds) break;
        Rng rng(o.seed * 1000003ULL + static_cast<std::uint64_t>(round));
        const fs::path dir = fs::path(o.work) / "rounds" / ("round-" + std::to_string(round));
        fs::remove_all(dir);
        fs::create_directories(dir);
        fs::copy_file(seeds.trace, dir / "shared.sqlite");
        const long long runsBefore = queryOne(dir / "shared.sqlite", "SELECT count(*) FROM runs");
        std::vector<const ConcurrentCommand*> ran;
        long long runsAdded = 0;
        for (int i = 0; i < o.concurrent; ++i) {
            ran.push_back(&commands[below(rng, commands.size())]);
            runsAdded += ran.back()->runsAdded;
            ++byKind[ran.back()->kind];
        }
        // Each process in its own subdirectory (its outputs apart), on the round's one database.
        std::vector<Outcome> outcomes(ran.size());
        std::vector<std::thread> threads;
        for (std::size_t i = 0; i < ran.size(); ++i) {
            const fs::path own = dir / ("p" + std::to_string(i));
            fs::create_directories(own);
            std::vector<std::string> argv = ran[i]->argv;
            for (std::string& a : argv)
                if (a == "shared.sqlite") a = "../shared.sqlite";
            threads.emplace_back(
                [&outcomes, i, own, argv] { outcomes[i] = runIn(own, argv, 600); });
        }
        for (std::thread& t : threads) t.join();
        std::string problem = judgeRound(dir, runsBefore, runsAdded, ran, outcomes);
        for (std::size_t i = 0; i < ran.size() && problem.empty(); ++i) {
            for (const auto& entry : fs::directory_iterator(dir / ("p" + std::to_string(i)))) {
                if (entry.path().filename().string().find(".glueprof-") != std::string::npos)
                    problem = "a temporary was left: " + entry.path().string();
            }
        }
        std::string kinds;
        for (const ConcurrentCommand* c : ran) kinds += (kinds.empty() ? "" : " ") + c->kind;
        if (o.verbose || !problem.empty()) {
            std::cout << "round " << round << " [" << kinds << "]"
                      << (problem.empty() ? " ok" : "\n  FINDING: " + problem) << "\n";
        }
        if (!problem.empty()) {
            const fs::path keep =
                fs::path(o.work) / "findings" / ("round-" + std::to_string(round));
            fs::remove_all(keep);
            fs::create_directories(keep.parent_path());
            fs::rename(dir, keep);
            findings.push_back("round " + std::to_string(round) + " [" + kinds + "]: " + problem);
        } else {
            fs::remove_all(dir);
        }
    }
    std::string kinds;
    for (const auto& [kind, count] : byKind)
        kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
    std::printf(
        "cli-fuzz: seed %llu: %lld rounds of %d processes on one database in %.1f s (seeds "
        "%.1f s) [%s]; %zu findings\n",
        static_cast<unsigned long long>(o.seed), round, o.concurrent,
        std::chrono::duration<double>(Clock::now() - loopStart).count(), seedSeconds, kinds.c_str(),
        findings.size());
    for (const std::string& f : findings) std::printf("  %s\n", f.c_str());
    return findings.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    glueprof::testing::HarnessOptions options;
    options.valued = {
        {"--cli", [&](const std::string& v) { o.cli = v; }},
        {"--gui", [&](const std::string& v) { o.gui = v; }},
        {"--source", [&](const std::string& v) { o.source = v; }},
        {"--work", [&](const std::string& v) { o.work = v; }},
        {"--seconds", [&](const std::string& v) { o.seconds = std::stod(v); }},
        {"--seed", [&](const std::string& v) { o.seed = std::stoull(v); }},
        {"--case", [&](const std::string& v) { o.onlyCase = std::stoll(v); }},
        {"--concurrent", [&](const std::string& v) { o.concurrent = std::stoi(v); }},
    };
    options.switches = {{"--verbose", [&] { o.verbose = true; }}};
    options.parse("cli-fuzz", argc, argv);
    if (o.cli.empty() || o.source.empty() || o.work.empty()) {
        std::cerr << "cli-fuzz: --cli, --source and --work are required\n";
        return 2;
    }
    o.cli = fs::absolute(o.cli).string();
    o.work = fs::absolute(o.work).string();  // each case runs in its own directory
    o.source = fs::absolute(o.source).string();
    if (!o.gui.empty() && !hasProgram("xvfb-run")) {
        std::cerr << "cli-fuzz: no xvfb-run here: GUI scripts are left out\n";
        o.gui.clear();
    }
    if (!o.gui.empty()) o.gui = fs::absolute(o.gui).string();
    fs::create_directories(o.work);
    const auto started = Clock::now();
    Seeds seeds;
    try {
        seeds = makeSeeds(o);
    } catch (const std::exception& e) {
        std::cerr << "cli-fuzz: " << e.what() << "\n";
        return 2;
    }
    const double seedSeconds = std::chrono::duration<double>(Clock::now() - started).count();
    if (o.concurrent > 0) return runConcurrentRounds(o, seeds, seedSeconds);

    std::map<std::string, int> byKind;
    std::map<int, int> byExit;
    std::vector<std::string> findings;
    const fs::path cases = fs::path(o.work) / "cases";
    const auto loopStart = Clock::now();
    long long n = o.onlyCase >= 0 ? o.onlyCase : 0;
    for (;; ++n) {
        if (o.onlyCase >= 0 && n > o.onlyCase) break;
        if (o.onlyCase < 0 &&
            std::chrono::duration<double>(Clock::now() - loopStart).count() >= o.seconds) {
            break;
        }
        Rng rng(o.seed * 1000003ULL + static_cast<std::uint64_t>(n));
        const fs::path dir = cases / ("case-" + std::to_string(n));
        fs::remove_all(dir);
        fs::create_directories(dir);
        const Case c = makeCase(o, seeds, dir, rng);
        const auto before = snapshot(dir);
        const Outcome outcome = runIn(dir, c.argv, c.timeout);
        const std::string problem = judge(c, outcome, before, dir);
        ++byKind[c.kind];
        ++byExit[outcome.exitCode];
        if (o.verbose || !problem.empty()) {
            std::string last = outcome.err.substr(0, outcome.err.find_last_not_of('\n') + 1);
            last = last.substr(last.find_last_of('\n') + 1);
            std::cout << "case " << n << " [" << c.kind << "] " << c.mutation.substr(0, 120)
                      << "\n  $ " << joined(c.argv) << "\n  exit " << outcome.exitCode << ": "
                      << last.substr(0, 300) << (problem.empty() ? "" : "\n  FINDING: " + problem)
                      << "\n";
        }
        if (!problem.empty()) {
            const fs::path keep = fs::path(o.work) / "findings" / ("case-" + std::to_string(n));
            fs::remove_all(keep);
            fs::create_directories(keep.parent_path());
            fs::rename(dir, keep);
            writeAll(keep.string() + ".txt",
                     joined(c.argv) + "\n" + c.mutation + "\n" + outcome.err);
            findings.push_back("case " + std::to_string(n) + " [" + c.kind + "]: " + problem);
        } else {
            fs::remove_all(dir);
        }
        for (const char* suffix : {".out", ".err"}) fs::remove(dir.string() + suffix);
    }
    const double loopSeconds = std::chrono::duration<double>(Clock::now() - loopStart).count();
    std::string kinds;
    for (const auto& [kind, count] : byKind) {
        kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
    }
    std::string exits;
    for (const auto& [code, count] : byExit) {
        exits += (exits.empty() ? "" : ", ") + std::to_string(code) + ": " + std::to_string(count);
    }
    std::printf(
        "cli-fuzz: seed %llu: %lld cases in %.1f s (seeds %.1f s) [%s]; exit codes {%s}; "
        "%zu findings\n",
        static_cast<unsigned long long>(o.seed), n - std::max(0LL, o.onlyCase), loopSeconds,
        seedSeconds, kinds.c_str(), exits.c_str(), findings.size());
    for (const std::string& f : findings) std::printf("  %s\n", f.c_str());
    if (!findings.empty()) {
        std::printf("  inputs kept in %s/findings; rerun one with --seed %llu --case N --verbose\n",
                    o.work.c_str(), static_cast<unsigned long long>(o.seed));
    }
    return findings.empty() ? 0 : 1;
}
