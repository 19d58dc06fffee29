#include "app/usecases/ProfileRequest.h"

#include <fmt/format.h>

#include <unistd.h>
#include <csignal>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "app/usecases/ChildProcess.h"
#include "app/usecases/ProfiledProgram.h"
#include "profiler/core/Diagnostics.h"
#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/core/TraceStore.h"
#include "profiler/core/WriterDirectoryLock.h"
#include "profiler/inject/ProfileProtocol.h"
#include "profiler/ranks/RankEnvironment.h"
#include "profiler/ranks/RankMerge.h"
#include "profiler/torch_ops/TorchEnvironment.h"

namespace glueprof {

namespace {

namespace fs = std::filesystem;

// Where libglueprof_inject.so and its Python hook are: GLUEPROF_INJECT_DIR, else the build's
// profiler/inject folder beside this executable's app/ folder.
fs::path injectDirectory() {
    if (const char* dir = std::getenv("GLUEPROF_INJECT_DIR"); dir != nullptr && *dir != '\0')
        return dir;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return exe.parent_path().parent_path().parent_path() / "profiler" / "inject";
}

// profile-PID-RANDOM: this process owns the launch while it runs (newLaunchId).
std::string launchId() { return "profile-" + newLaunchId(); }

std::string joined(const std::vector<std::string>& items, const char* separator) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
    return text;
}

// The value of NAME in NAME=VALUE assignments (the last one wins), or nullopt.
std::optional<std::string> valueIn(const std::vector<std::string>& variables,
                                   const std::string& name) {
    std::optional<std::string> value;
    for (const std::string& variable : variables) {
        if (variable.size() > name.size() && variable.compare(0, name.size(), name) == 0 &&
            variable[name.size()] == '=')
            value = variable.substr(name.size() + 1);
    }
    return value;
}

std::string nameOf(const std::string& assignment) {
    return assignment.substr(0, assignment.find('='));
}

// The environment the program runs with: this one, with the request's own variables (an A/B
// arm's: each replaces the variable of that name this process has), the protocol's variables and
// the ways in for the capture (PYTHONPATH for any Python the program is or starts, LD_PRELOAD for
// a native program that links libtorch; each keeps the value the program would have had after
// glueprof's own entry).
std::vector<std::string> programEnvironment(const ProfileRequest& request,
                                            const ProfiledProgram& program,
                                            const std::string& tracePrefix, const fs::path& library,
                                            const fs::path& hook, const std::string& torchVersion) {
    std::vector<std::string> inherited = currentEnvironment();
    for (const std::string& variable : request.environment) inherited.push_back(variable);
    std::vector<std::string> environment;
    std::set<std::string> seen;
    // The request's variables come last in `inherited`: taken from the back, the last of each
    // name wins, and every name appears once.
    for (auto it = inherited.rbegin(); it != inherited.rend(); ++it) {
        const std::string name = nameOf(*it);
        if (name.rfind("GLUEPROF_PROFILE_", 0) == 0) continue;  // an outer profile's
        if (name == "PYTHONPATH" || name == "LD_PRELOAD" || !seen.insert(name).second) continue;
        environment.push_back(*it);
    }
    std::reverse(environment.begin(), environment.end());
    const std::string pythonPath = valueIn(inherited, "PYTHONPATH").value_or("");
    const std::string preload = valueIn(inherited, "LD_PRELOAD").value_or("");
    // The writer thread in the program at the lowest priority (unless the user chose one; 19 is
    // also the writer's own default): a program's compute threads (OpenMP, 1 per core) wait for
    // each other at every parallel region, so a writer that takes a core from one of them slows
    // every op. At nice 5 the examples' steps took 34% longer under glueprof profile on 2 cores; at
    // 19, about 14% (bench/profile_overhead.py). The writer catches up in idle time and at the
    // program's end.
    if (seen.count("GLUEPROF_WRITER_NICE") == 0) environment.push_back("GLUEPROF_WRITER_NICE=19");
    using namespace profile;
    environment.push_back(fmt::format("{}={}", kTracePrefixVar, tracePrefix));
    environment.push_back(fmt::format(
        "{}={}", kLabelVar, request.label.empty() ? programLabel(request.command) : request.label));
    environment.push_back(fmt::format("{}={}", kStepRangeVar, request.stepRange));
    environment.push_back(fmt::format("{}={}", kWarmupVar, request.warmup));
    environment.push_back(fmt::format("{}={}", kGlueRangesVar, joined(request.glueRanges, ",")));
    environment.push_back(fmt::format("{}={}", kDeviceVar, request.device));
    environment.push_back(
        fmt::format("{}={}", kCommandVar,
                    nlohmann::json(request.command)
                        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    environment.push_back(fmt::format("{}={}", kTorchVersionVar, torchVersion));
    environment.push_back(fmt::format("{}={}", kLibraryVar, library.string()));
    environment.push_back(fmt::format("{}={}", kLauncherPidVar, ::getpid()));
    environment.push_back(fmt::format("{}={}", kLauncherGroupVar, ::getpgrp()));
    if (!request.arm.empty()) environment.push_back(fmt::format("{}={}", kArmVar, request.arm));
    if (request.block > 0) environment.push_back(fmt::format("{}={}", kBlockVar, request.block));
    // The hook on PYTHONPATH whatever CMD is: a shell script, `valgrind python ...` or a launcher
    // starts Python itself, and the hook does nothing until that Python imports torch.
    environment.push_back("PYTHONPATH=" + hook.string() +
                          (pythonPath.empty() ? "" : ":" + pythonPath));
    if (program.kind == ProgramKind::kNative && program.linksTorch) {
        environment.push_back("LD_PRELOAD=" + library.string() +
                              (preload.empty() ? "" : ":" + preload));
        environment.push_back(fmt::format("{}=1", kPreloadVar));
    } else if (!preload.empty()) {
        environment.push_back("LD_PRELOAD=" + preload);
    }
    return environment;
}

// The ranks that left a trace file (DB.LAUNCH.rank-R), in order.
std::set<int> ranksWithFiles(const std::string& tracePrefix) {
    const fs::path prefix(tracePrefix);
    const std::string stem = prefix.filename().string();
    std::set<int> ranks;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(prefix.parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(stem, 0) != 0) continue;
        const std::string rank = name.substr(stem.size());
        if (rank.empty() || rank.size() > 5 ||
            rank.find_first_not_of("0123456789") != std::string::npos)
            continue;
        ranks.insert(std::stoi(rank));
    }
    return ranks;
}

// A program that never imported torch still gets its run: no steps, no ops, and why.
RunId storeRunWithoutTorch(const ProfileRequest& request, const ChildEnd& end) {
    TraceStore target(request.db);
    RunInfo info;
    info.label = request.label.empty() ? programLabel(request.command) : request.label;
    info.preset = "profile";
    info.device = "cpu";
    info.configJson = nlohmann::json{{"command", request.command}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    info.identity.arm = parseArm(request.arm);
    const RunId run = target.beginRun(info);
    RunAppend append(target, run);
    append.diagnostic(
        diagnosticName(DiagnosticId::kProfileNoTorch), 1,
        "the program never imported torch: there was nothing for the capture to record");
    append.finish(end.exitCode == 0 ? RunStatus::kComplete : RunStatus::kAborted);
    target.close();
    return run;
}

// The longest file name glueprof's side files beside DB take (the process file, a rank's trace
// renamed FILE.unmerged, and SQLite's -journal beside it) must fit the file system, and the path
// SQLite's limit (512 bytes): refused before the program runs, not found out after it ran
// unrecorded.
void requireSideFileNamesFit(const std::string& tracePrefix, const std::string& db) {
    const fs::path prefix(tracePrefix);
    const std::string longestSuffix = "99999.unmerged-journal";
    const std::size_t name = prefix.filename().string().size() + longestSuffix.size();
    const long nameMax = ::pathconf(prefix.parent_path().c_str(), _PC_NAME_MAX);
    const std::size_t limit = nameMax > 0 ? static_cast<std::size_t>(nameMax) : 255;
    const std::size_t dbName = fs::path(db).filename().string().size();
    if (name > limit) {
        throw inputError(fmt::format(
            "the database name '{}' is too long for the trace files glueprof keeps beside it "
            "while the program runs ({} characters; at most {} here): give --db a shorter name",
            fs::path(db).filename().string(), dbName, dbName - (name - limit)));
    }
    constexpr std::size_t kSqlitePathMax = 511;
    const std::size_t path = tracePrefix.size() + longestSuffix.size();
    if (path > kSqlitePathMax) {
        throw inputError(fmt::format(
            "the database path '{}' is too long for the trace files glueprof keeps beside it "
            "while the program runs ({} characters; at most {}): give --db a shorter path",
            db, db.size(), db.size() - (path - kSqlitePathMax)));
    }
}

// The process file (ProfileProtocol.h), created before the program runs and held open: the
// notes it gets are read through this descriptor, whatever the program does to the file's name.
class ProcessFile {
  public:
    explicit ProcessFile(const std::string& tracePrefix)
        : m_path(profile::processesPath(tracePrefix)) {
        m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (m_fd < 0) {
            throw inputError(
                fmt::format("cannot create '{}' beside the database ({}): check "
                            "that its folder is writable",
                            m_path, std::strerror(errno)));
        }
    }
    ~ProcessFile() {
        ::close(m_fd);
        std::error_code ec;
        fs::remove(m_path, ec);
    }
    ProcessFile(const ProcessFile&) = delete;
    ProcessFile& operator=(const ProcessFile&) = delete;

    std::vector<profile::ProcessNote> notes() const {
        std::string text;
        char buffer[4096];
        for (off_t at = 0;;) {
            const ssize_t n = ::pread(m_fd, buffer, sizeof buffer, at);
            if (n <= 0) break;
            text.append(buffer, static_cast<std::size_t>(n));
            at += n;
        }
        return profile::parseProcessNotes(text);
    }

  private:
    std::string m_path;
    int m_fd = -1;
};

// What the processes noted, gathered: who started recording, who ended, who could not.
struct ProcessNotes {
    std::map<int, std::vector<profile::ProcessNote>> startedByRank;
    std::vector<ProcessIdentity> stillRecording;  // started, not finished
    std::vector<profile::ProcessNote> failed;
    std::optional<profile::ProcessNote> refused;
};

ProcessNotes gather(const std::vector<profile::ProcessNote>& notes) {
    ProcessNotes gathered;
    std::set<std::pair<int, long long>> finished;
    for (const profile::ProcessNote& note : notes) {
        if (note.kind == profile::ProcessNoteKind::kFinished)
            finished.insert({note.pid, note.startTime});
    }
    for (const profile::ProcessNote& note : notes) {
        switch (note.kind) {
            case profile::ProcessNoteKind::kStarted:
                gathered.startedByRank[note.rank].push_back(note);
                if (finished.count({note.pid, note.startTime}) == 0)
                    gathered.stillRecording.push_back({note.pid, note.startTime});
                break;
            case profile::ProcessNoteKind::kFailed:
                gathered.failed.push_back(note);
                break;
            case profile::ProcessNoteKind::kRefused:
                if (!gathered.refused) gathered.refused = note;
                break;
            case profile::ProcessNoteKind::kFinished:
                break;
        }
    }
    return gathered;
}

// Whether the process PID has ended (a PID of another user's process still runs).
bool hasEnded(int pid) { return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH; }

// Removes a database this profile created when the profile fails before it stored anything.
class CreatedDatabase {
  public:
    explicit CreatedDatabase(const std::string& db) : m_db(db) {
        std::error_code ec;
        m_existed = fs::exists(db, ec);
    }
    // Kept when a run is stored whole in it (a merge of earlier leftovers, or a run that failed
    // only after another was stored); else removed, unless another writer has it open (another
    // profile of the same new database).
    ~CreatedDatabase() {
        if (m_existed || m_kept) return;
        WriterDirectoryLock lock(m_db);
        removeCreatedDatabase(m_db, lock, [this] {
            try {
                for (const RunSummary& run : TraceReader(m_db).listRuns()) {
                    if (run.status != "running") return false;
                }
            } catch (const GlueprofError&) {  // empty or cut short: nothing of it can be read
            }
            return true;
        });
    }
    CreatedDatabase(const CreatedDatabase&) = delete;
    CreatedDatabase& operator=(const CreatedDatabase&) = delete;
    void keep() { m_kept = true; }

  private:
    std::string m_db;
    bool m_existed = true;
    bool m_kept = false;
};

}  // namespace

void removeSideFilesOfEndedLaunches(const std::string& db) {
    const fs::path path = fs::absolute(db);
    const std::string name = path.filename().string();
    const std::string profileStem = name + ".profile-";
    const std::string processes = std::string(".rank-") + profile::kProcessesSuffix;
    const std::string scratchStem = name + ".exec-ab-";
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(path.parent_path(), ec)) {
        const std::string file = entry.path().filename().string();
        if (file.rfind(profileStem, 0) == 0 &&
            file.size() > profileStem.size() + processes.size() &&
            file.compare(file.size() - processes.size(), processes.size(), processes) == 0) {
            // DB.profile-PID-RANDOM.rank-processes: the traces beside it were merged as leftovers.
            const std::string launch =
                file.substr(name.size() + 1, file.size() - processes.size() - (name.size() + 1));
            if (hasEnded(launchOwnerPid(launch))) fs::remove(entry.path(), ec);
        } else if (file.rfind(scratchStem, 0) == 0) {
            // DB.exec-ab-PID.sqlite and whatever its profiles left beside it: an A/B stored only
            // whole, whose process is gone, is nothing.
            const std::string rest = file.substr(scratchStem.size());
            const std::string pid = rest.substr(0, rest.find('.'));
            if (pid.empty() || pid.size() > 9 ||
                pid.find_first_not_of("0123456789") != std::string::npos ||
                rest.compare(pid.size(), 7, ".sqlite") != 0)
                continue;
            if (hasEnded(std::stoi(pid))) fs::remove(entry.path(), ec);
        }
    }
}

std::string programLabel(const std::vector<std::string>& command) {
    for (std::size_t i = 1; i < command.size(); ++i) {
        // python -m torch.distributed.run ... SCRIPT: the ranks' script names the run.
        if (command[i] == "-m" && i + 1 < command.size() &&
            command[i + 1].rfind("torch.distributed.", 0) != 0)
            return command[i + 1];
        const fs::path argument(command[i]);
        if (argument.extension() == ".py") return argument.filename().string();
    }
    return command.empty() ? "program" : fs::path(command.front()).filename().string();
}

ProfileResult runProfile(const ProfileRequest& request) {
    if (request.warmup < 0 || request.warmup > 100000) {
        throw GlueprofError(ExitCode::kUsage, "--warmup must be between 0 and 100000 steps");
    }
    if (request.device != "auto" && request.device != "cpu" && request.device != "cuda") {
        throw GlueprofError(ExitCode::kUsage, "--device must be auto, cpu or cuda");
    }
    for (const std::string& variable : request.environment) {
        if (variable.find('=') == std::string::npos || variable.front() == '=')
            throw usageError(fmt::format("'{}' is no NAME=VALUE", variable));
    }
    requireTraceDatabaseTakesRuns(request.db);  // before the program runs, not after
    const std::string torchVersion = torchEnvironment().version;
    const ProfiledProgram program = inspectProgram(request.command, torchVersion);
    const fs::path directory = injectDirectory();
    const fs::path library = directory / "libglueprof_inject.so";
    const fs::path hook = directory / "python";
    std::error_code ec;
    if (!fs::exists(library, ec) || !fs::exists(hook / "sitecustomize.py", ec)) {
        throw GlueprofError(
            ExitCode::kInput,
            fmt::format("glueprof's capture library is not at '{}' (build it: make build; or set "
                        "GLUEPROF_INJECT_DIR to the folder holding libglueprof_inject.so and "
                        "python/)",
                        library.string()));
    }
    ProfileResult result;
    if (program.kind == ProgramKind::kNative && !program.linksTorch) {
        result.notices.push_back(fmt::format(
            "'{}' does not link libtorch: glueprof captures a Python program it starts, not a "
            "native one (profile that one directly)",
            program.path));
    }
    ProfileRequest absolute = request;
    absolute.db = fs::absolute(request.db).lexically_normal().string();
    const std::string launch = launchId();
    const std::string tracePrefix = fmt::format("{}.{}.rank-", absolute.db, launch);
    requireSideFileNamesFit(tracePrefix, absolute.db);
    CreatedDatabase created(absolute.db);
    // What an earlier profile left when it was killed (its trace files beside DB) goes in first.
    for (const std::string& line :
         leftoverNotices(mergeLeftoverRankTraces(absolute.db, launch), absolute.db))
        result.notices.push_back(line);
    removeSideFilesOfEndedLaunches(absolute.db);
    const ProcessFile processes(tracePrefix);
    const std::vector<std::string> environment =
        programEnvironment(absolute, program, tracePrefix, library, hook, torchVersion);

    ChildEnd end;
    ProcessNotes notes;
    {
        const InterruptionScope interruptible;  // Ctrl-C reaches the program; glueprof waits
        const pid_t pid = startChild(program.path, request.command, environment);
        end = waitForChild(pid);
        // What the program left running (a shell's Python after the shell was killed, a process
        // in a session of its own that records) ends before its trace is read.
        const std::vector<int> left =
            endLeftoverProcesses(pid, gather(processes.notes()).stillRecording, 5000);
        if (!left.empty()) {
            result.notices.push_back(fmt::format(
                "ended {} process(es) the program left running when it ended (PID {}): what "
                "they recorded until then is kept",
                left.size(), fmt::join(left, ", ")));
        }
        notes = gather(processes.notes());
    }
    result.exitCode = end.exitCode;
    result.ending = end.text;

    if (notes.refused) throw GlueprofError(ExitCode::kInput, notes.refused->detail);
    std::set<int> ranks = ranksWithFiles(tracePrefix);
    std::vector<std::string> vanished;
    for (const auto& [rank, started] : notes.startedByRank) {
        if (ranks.count(rank) != 0) continue;
        vanished.push_back(fmt::format(
            "the trace of rank {} ('{}', written by process {}) vanished while the program ran "
            "(something deleted it): nothing of that process is stored",
            rank, started.front().detail, started.front().pid));
    }
    std::vector<std::string> failures;
    for (const profile::ProcessNote& failed : notes.failed) {
        failures.push_back(
            fmt::format("the capture could not record process {}: {}", failed.pid, failed.detail));
    }
    if (ranks.empty()) {
        if (!vanished.empty()) throw inputError(vanished.front());
        if (!failures.empty()) throw inputError(failures.front());
        result.torchSeen = false;
        result.runs.push_back(storeRunWithoutTorch(absolute, end));
        created.keep();
        result.notices.push_back(
            "the program never imported torch, or the Python that did was started without "
            "glueprof's start-up hook (-E, -I, -S, or a PYTHONPATH it reset): its run has no ops");
        return result;
    }
    for (const std::string& line : vanished) result.notices.push_back(line);
    for (const std::string& line : failures) result.notices.push_back(line);
    MergedRanks merged;
    try {
        // How the program ended joins each run as it is merged: stored once, whole.
        MergedRunEnding ending;
        ending.diagnostics.push_back(
            Diagnostic{diagnosticName(DiagnosticId::kProfileExit), end.exitCode, end.text});
        if (end.exitCode != 0) ending.status = RunStatus::kAborted;
        merged = mergeRankTraces(absolute.db, launch, {ranks.begin(), ranks.end()}, {}, ending);
    } catch (const GlueprofError& e) {
        // --db changed under the program (checked before it ran): what was not merged stays in
        // its rank files, each a trace database of its own.
        std::string kept;
        for (int rank : ranks) {
            for (const std::string& file : {tracePrefix + std::to_string(rank),
                                            tracePrefix + std::to_string(rank) + ".unmerged"}) {
                if (fs::exists(file, ec)) kept += (kept.empty() ? "'" : ", '") + file + "'";
            }
        }
        if (kept.empty()) throw;
        throw GlueprofError(e.code(), fmt::format("{}; what the program recorded is kept in {} "
                                                  "(glueprof traces: open them with --db)",
                                                  e.what(), kept));
    }
    for (const std::string& line : unmergedNotices(merged, absolute.db))
        result.notices.push_back(line);
    result.runs = merged.runs;
    if (!result.runs.empty()) created.keep();
    return result;
}

}  // namespace glueprof
