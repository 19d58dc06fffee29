#include "app/usecases/ProfileRequest.h"

#include <fmt/format.h>

#include <unistd.h>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "app/usecases/ChildProcess.h"
#include "app/usecases/ProfiledProgram.h"
#include "profiler/core/Diagnostics.h"
#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/inject/ProfileProtocol.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/distributed/RankEnvironment.h"
#include "reference_trainer/distributed/RankMerge.h"

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

// The environment the program runs with: this one, with the protocol's variables and the ways in
// for the capture (PYTHONPATH for any Python the program is or starts, LD_PRELOAD for a native
// program that links libtorch).
std::vector<std::string> programEnvironment(const ProfileRequest& request,
                                            const ProfiledProgram& program,
                                            const std::string& tracePrefix, const fs::path& library,
                                            const fs::path& hook, const std::string& torchVersion) {
    std::vector<std::string> environment;
    std::string pythonPath;
    std::string preload;
    for (const std::string& variable : currentEnvironment()) {
        if (variable.rfind("GLUEPROF_PROFILE_", 0) == 0) continue;  // an outer profile's
        if (variable.rfind("PYTHONPATH=", 0) == 0) {
            pythonPath = variable.substr(11);
        } else if (variable.rfind("LD_PRELOAD=", 0) == 0) {
            preload = variable.substr(11);
        } else {
            environment.push_back(variable);
        }
    }
    // The writer thread in the program at the lowest priority (unless the user chose one; 19 is
    // also the writer's own default): a program's compute threads (OpenMP, 1 per core) wait for
    // each other at every parallel region, so a writer that takes a core from one of them slows
    // every op. At nice 5 the examples' steps took 34% longer under glueprof profile on 2 cores; at
    // 19, about 14% (bench/profile_overhead.py). The writer catches up in idle time and at the
    // program's end.
    if (std::getenv("GLUEPROF_WRITER_NICE") == nullptr)
        environment.push_back("GLUEPROF_WRITER_NICE=19");
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
    for (const std::string& variable : request.environment) environment.push_back(variable);
    return environment;
}

// The ranks that left a trace file: 1 + the highest (0 when none did).
int recordedWorldSize(const std::string& tracePrefix) {
    const fs::path prefix(tracePrefix);
    const std::string stem = prefix.filename().string();
    int worldSize = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(prefix.parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(stem, 0) != 0) continue;
        const std::string rank = name.substr(stem.size());
        if (rank.empty() || rank.size() > 5 ||
            rank.find_first_not_of("0123456789") != std::string::npos)
            continue;
        worldSize = std::max(worldSize, std::stoi(rank) + 1);
    }
    return worldSize;
}

// A program that never imported torch still gets its run: no steps, no ops, and why.
RunId storeRunWithoutTorch(const ProfileRequest& request, const ChildEnd& end) {
    TraceWriter writer(request.db);
    RunInfo info;
    info.label = request.label.empty() ? programLabel(request.command) : request.label;
    info.preset = "profile";
    info.device = "cpu";
    info.configJson = nlohmann::json{{"command", request.command}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    info.identity.arm = parseArm(request.arm);
    const RunId run = writer.beginRun(info);
    writer.recordDiagnostic(DiagnosticRecord{
        run, diagnosticName(DiagnosticId::kProfileNoTorch), 1,
        "the program never imported torch: there was nothing for the capture to record"});
    writer.endRun(run, end.exitCode == 0 ? RunStatus::kComplete : RunStatus::kAborted);
    writer.close();
    return run;
}

std::string readRefusal(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

}  // namespace

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
    std::vector<std::string> arguments = request.command;
    const std::vector<std::string> environment =
        programEnvironment(absolute, program, tracePrefix, library, hook, torchVersion);

    ChildEnd end;
    {
        const InterruptionScope interruptible;  // Ctrl-C reaches the program; glueprof waits
        const pid_t pid = startChild(program.path, arguments, environment);
        end = waitForChild(pid);
    }
    result.exitCode = end.exitCode;
    result.ending = end.text;

    const std::string refusal = profile::refusalPath(tracePrefix);
    if (fs::exists(refusal, ec)) {
        const std::string reason = readRefusal(refusal);
        fs::remove(refusal, ec);
        throw GlueprofError(ExitCode::kInput, reason);
    }
    const int worldSize = recordedWorldSize(tracePrefix);
    if (worldSize == 0) {
        result.torchSeen = false;
        result.runs.push_back(storeRunWithoutTorch(absolute, end));
        result.notices.push_back(
            "the program never imported torch: its run has no ops (is it the right command?)");
        return result;
    }
    MergedRanks merged;
    try {
        merged = mergeRankTraces(absolute.db, launch, worldSize, {});
    } catch (const GlueprofError& e) {
        // --db changed under the program (checked before it ran): what was not merged stays in
        // its rank files, each a trace database of its own.
        std::string kept;
        for (int rank = 0; rank < worldSize; ++rank) {
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
    TraceWriter writer(absolute.db);
    for (RunId run : result.runs) {
        writer.recordDiagnostic(DiagnosticRecord{run, diagnosticName(DiagnosticId::kProfileExit),
                                                 end.exitCode, end.text});
        if (end.exitCode != 0) writer.endRun(run, RunStatus::kAborted);
    }
    writer.close();
    return result;
}

}  // namespace glueprof
