#include "app/usecases/ExecAbRequest.h"

#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "app/usecases/ProfileRequest.h"
#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/MachineLoad.h"
#include "profiler/core/RunCopy.h"
#include "profiler/core/RunMetadata.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/core/TraceStore.h"

namespace glueprof {

namespace {

constexpr const char* kArms[] = {"baseline", "optimized"};

}  // namespace

void checkExecAbRequest(const ExecAbRequest& r) {
    if (r.baseline.empty() || r.optimized.empty()) {
        throw usageError(
            "ab --exec needs a command for each arm: --exec CMD with "
            "--baseline-env/--optimized-env, "
            "or --baseline CMD and --optimized CMD");
    }
    if (r.repeats < 1) throw usageError("--repeats must be at least 1 block");
    for (const auto* environment : {&r.baselineEnvironment, &r.optimizedEnvironment}) {
        for (const std::string& variable : *environment) {
            const auto equals = variable.find('=');
            if (equals == std::string::npos || equals == 0) {
                throw usageError(fmt::format(
                    "'{}' is no NAME=VALUE: give --baseline-env and --optimized-env as NAME=VALUE",
                    variable));
            }
        }
    }
    if (r.name.empty()) throw usageError("--name must not be empty");
}

namespace {

// The scratch database each process's run goes to first, beside the database; removed whatever
// happens (the A/B is stored only whole).
class ScratchDatabase {
  public:
    explicit ScratchDatabase(const std::string& db)
        : m_path(fmt::format("{}.exec-ab-{}.sqlite", db, ::getpid())) {}
    ~ScratchDatabase() { removeTraceDatabase(m_path); }
    ScratchDatabase(const ScratchDatabase&) = delete;
    ScratchDatabase& operator=(const ScratchDatabase&) = delete;
    const std::string& path() const { return m_path; }

  private:
    std::string m_path;
};

// The arm's run: the first block's run information, named and paired, with the A/B's target.
RunInfo armRunInfo(const ExecAbRequest& r, const RunSummary& first, int arm, RunId baseline) {
    RunInfo info = runInfoOf(first);
    info.label = fmt::format("{} ({})", r.name, kArms[arm]);
    nlohmann::json config = storedObjectOrEmpty(first.configJson);
    config["target_range"] = r.target;
    config["blocks"] = r.repeats;
    config["environment"] = arm == 0 ? r.baselineEnvironment : r.optimizedEnvironment;
    info.configJson = config.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    info.identity.kind = RunKind::kTrained;
    info.identity.abGroup = arm == 0 ? kStartsAbGroup : baseline;
    info.identity.arm = arm == 0 ? Arm::kBaseline : Arm::kOptimized;
    info.identity.toggle = r.name;
    info.identity.rank.reset();
    info.identity.worldSize.reset();
    return info;
}

}  // namespace

std::vector<std::string> splitCommand(const std::string& command) {
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (std::size_t i = 0; i < command.size(); ++i) {
        const char c = command[i];
        if (quote == '\'') {
            if (c == '\'') {
                quote = 0;
            } else {
                word += c;
            }
        } else if (quote == '"') {
            if (c == '"') {
                quote = 0;
            } else if (c == '\\' && i + 1 < command.size() &&
                       std::string("\"\\$`").find(command[i + 1]) != std::string::npos) {
                word += command[++i];
            } else {
                word += c;
            }
        } else if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == '\\' && i + 1 < command.size()) {
            word += command[++i];
            inWord = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord) words.push_back(word);
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (quote != 0) {
        throw usageError(fmt::format("the command '{}' has an unterminated {} quote", command,
                                     quote == '"' ? "double" : "single"));
    }
    if (inWord) words.push_back(word);
    return words;
}

ExecAbOutcome runExecAb(const ExecAbRequest& request, const ExecAbProgress& progress) {
    checkExecAbRequest(request);
    requireTraceDatabaseTakesRuns(request.db);  // before the program runs, not after
    removeSideFilesOfEndedLaunches(request.db);
    const ScratchDatabase scratch(request.db);
    // Ctrl-C or SIGTERM anywhere in the blocks (while a program runs, or between two) ends the A/B
    // after the program in flight: noted here, so the scratch database is removed on the way out.
    const InterruptionScope interruptible;
    std::vector<RunId> blockRuns[2];
    std::vector<BlockLoad> loads[2];  // what else the machine ran while each arm's program ran
    ExecAbOutcome outcome;
    for (int block = 1; block <= request.repeats; ++block) {
        // A B in odd blocks, B A in even ones: a drift of the machine hits both arms alike.
        const int order[2] = {block % 2 == 1 ? 0 : 1, block % 2 == 1 ? 1 : 0};
        for (int arm : order) {
            ProfileRequest run;
            run.command = arm == 0 ? request.baseline : request.optimized;
            run.db = scratch.path();
            run.label = fmt::format("{} ({})", request.name, kArms[arm]);
            run.stepRange = request.stepRange;
            run.warmup = request.warmup;
            run.glueRanges = request.glueRanges;
            run.device = request.device;
            run.arm = kArms[arm];
            run.block = block;
            run.environment = arm == 0 ? request.baselineEnvironment : request.optimizedEnvironment;
            const MachineLoadSample before = sampleMachineLoad();
            const ProfileResult result = runProfile(run);
            if (const std::optional<MachineLoad> load = loadBetween(before, sampleMachineLoad()))
                loads[arm].push_back(BlockLoad{block, *load});
            if (progress) progress(block, kArms[arm], result.ending);
            throwIfInterrupted(
                fmt::format("nothing of this A/B is stored (it was in block {})", block));
            if (result.exitCode != 0) {
                throw GlueprofError(
                    ExitCode::kInput,
                    fmt::format("the {} arm's program {} in block {}: nothing of this A/B is "
                                "stored (run it alone with glueprof profile -- ... to see why)",
                                kArms[arm], result.ending, block));
            }
            if (!result.torchSeen) {
                throw GlueprofError(ExitCode::kInput,
                                    fmt::format("the {} arm's program never imported torch: "
                                                "there is nothing to compare",
                                                kArms[arm]));
            }
            if (result.runs.size() != 1) {
                throw GlueprofError(
                    ExitCode::kInput,
                    fmt::format("the {} arm's program recorded {} processes (ranks): ab --exec "
                                "compares single-process programs; profile the ranks with "
                                "glueprof profile -- torchrun ...",
                                kArms[arm], result.runs.size()));
            }
            blockRuns[arm].push_back(result.runs.front());
        }
    }

    const TraceReader reader(scratch.path());
    std::int32_t stride = 1;  // steps of one block: the next block's are numbered after them
    for (const auto& runs : blockRuns) {
        for (RunId id : runs) {
            // Its steps only (the model is kept while they are read; its events are not loaded).
            const TraceModel model = reader.loadRunWithoutEvents(id);
            for (const StepInfo& step : model.steps()) stride = std::max(stride, step.step + 1);
        }
    }
    TraceStore target(request.db);
    for (int arm = 0; arm < 2; ++arm) {
        const RunInfo info =
            armRunInfo(request, reader.runSummary(blockRuns[arm].front()), arm, outcome.baseline);
        const RunId id = target.beginRun(info);
        RunAppend append(target, id);
        for (std::size_t k = 0; k < blockRuns[arm].size(); ++k) {
            // Each block's own process: its op correlation ids start again, so they move apart.
            const RunCopyShift shift{0, static_cast<std::int32_t>(k) * stride,
                                     static_cast<std::int64_t>(k + 1) << 40};
            copyStoredRun(append, reader, blockRuns[arm][k], shift);
        }
        append.diagnostic(kMachineLoadDiagnostic, static_cast<std::int64_t>(loads[arm].size()),
                          blockLoadsJson(loads[arm]));
        append.finish(RunStatus::kComplete);
        (arm == 0 ? outcome.baseline : outcome.optimized) = id;
    }
    target.close();
    return outcome;
}

}  // namespace glueprof
