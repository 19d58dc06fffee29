#include "app/cli/AbExec.h"

#include <fmt/format.h>

#include <iostream>
#include <set>
#include <utility>

#include "app/cli/AbResultsOutput.h"
#include "app/report/Results.h"
#include "app/usecases/ExecAbRequest.h"
#include "profiler/core/Diagnostics.h"
#include "profiler/core/Error.h"
#include "profiler/core/OutputPath.h"
#include "profiler/core/ProgramToggles.h"
#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

namespace {

constexpr const char kExecOptionGroup[] = "Your own program (--exec)";

std::vector<std::string> withArguments(const std::string& command, const std::string& arguments) {
    std::vector<std::string> words = splitCommand(command);
    for (std::string& word : splitCommand(arguments)) words.push_back(std::move(word));
    return words;
}

// What each --try toggle did in the optimized arm (its diagnostic program_toggles): a toggle that
// did not apply left the arms the same program, and its verdict says nothing of it.
void sayWhatTheToggleDid(const std::string& db, RunId optimized) {
    const TraceModel arm = TraceReader(db).loadRun(optimized);
    for (const Diagnostic& d : arm.diagnostics()) {
        if (d.name != diagnosticName(DiagnosticId::kProgramToggles)) continue;
        std::cerr << "glueprof: --try in the optimized arm: " << d.detail << "\n";
        if (d.detail.find("not applied") != std::string::npos)
            std::cerr << "glueprof: a toggle that did not apply left both arms the same "
                         "program: the verdict says nothing of it\n";
        return;
    }
    std::cerr << "glueprof: --try: the optimized arm recorded no toggle (the program never "
                 "imported torch?): the verdict compares two runs of the same program\n";
}

}  // namespace

void AbExecOptions::addTo(CLI::App& command) {
    // Every option of ab --exec in one group: runAbExec tells them from the trainer's by it.
    const auto add = [&command](auto&&... arguments) {
        return command.add_option(std::forward<decltype(arguments)>(arguments)...)
            ->group(kExecOptionGroup);
    };
    add("--exec", exec,
        "A/B your own program: the command both arms run (quoted), told apart by "
        "--baseline-env/--optimized-env or --baseline-args/--optimized-args");
    add("--baseline", baseline, "with --optimized: the baseline arm's command");
    add("--optimized", optimized, "with --baseline: the optimized arm's command");
    add("--baseline-args", baselineArgs, "with --exec: arguments added for the baseline arm");
    add("--optimized-args", optimizedArgs,
        "with --exec: arguments added for the optimized arm (e.g. a flag)");
    add("--baseline-env", baselineEnvironment,
        "NAME=VALUE for the baseline arm's processes (repeatable)");
    add("--optimized-env", optimizedEnvironment,
        "NAME=VALUE for the optimized arm's processes (repeatable)");
    add("--target", target,
        "the program's range (record_function name) the change targets: its time "
        "per step gets its own verdict");
    add("--name", name, "the A/B's name (check baselines key on it)")->capture_default_str();
    add("--step-range", stepRange,
        "with --exec: each range of this name is a step (default: ProfilerStep#N, "
        "else each optimizer step)");
    add("--glue", glueRanges, "with --exec: a range name whose ops are glue (repeatable)");
    add("--try", tryToggles,
        "with --exec: the optimized arm runs the command with these program toggles applied, "
        "NAME[=VALUE],... (fused_optimizer, loader_workers=N, pinned_loader, hf_grouped_experts, "
        "...: docs/profile.md)");
}

bool AbExecOptions::wanted(const CLI::App& command) const {
    return command.count("--exec") > 0 || command.count("--baseline") > 0 ||
           command.count("--optimized") > 0;
}

int runAbExec(const AbExecOptions& o, const TrainerOptions& trainer, int repeats,
              const std::string& reportPath, const CLI::App& command) {
    // Every other option of `ab` sets up the reference trainer: refused, never silently ignored.
    static const std::set<std::string> kSharedOptions = {
        "--db", "--json", "--warmup", "--device", "--repeats", "--report", "--help"};
    for (const CLI::Option* option : command.get_options()) {
        if (option->count() == 0 || option->get_lnames().empty() ||
            option->get_group() == kExecOptionGroup)
            continue;
        const std::string name = "--" + option->get_lnames().front();
        if (kSharedOptions.count(name) > 0) continue;
        throw usageError(fmt::format(
            "{} sets up the reference trainer; ab --exec runs your program as it is: drop {}", name,
            name));
    }
    ExecAbRequest request;
    if (command.count("--exec") > 0) {
        if (!o.baseline.empty() || !o.optimized.empty()) {
            throw usageError("give --exec CMD, or --baseline CMD and --optimized CMD, not both");
        }
        request.baseline = withArguments(o.exec, o.baselineArgs);
        request.optimized = withArguments(o.exec, o.optimizedArgs);
        if (request.baseline == request.optimized && o.baselineEnvironment.empty() &&
            o.optimizedEnvironment.empty() && o.tryToggles.empty()) {
            throw usageError(
                "with --exec, tell the arms apart: --optimized-args, --optimized-env (or the "
                "baseline's), or give --baseline and --optimized");
        }
    } else {
        if (o.baseline.empty() || o.optimized.empty()) {
            throw usageError("--baseline and --optimized go together: give both commands");
        }
        if (!o.baselineArgs.empty() || !o.optimizedArgs.empty()) {
            throw usageError("--baseline-args and --optimized-args go with --exec");
        }
        request.baseline = splitCommand(o.baseline);
        request.optimized = splitCommand(o.optimized);
    }
    request.baselineEnvironment = o.baselineEnvironment;
    request.optimizedEnvironment = o.optimizedEnvironment;
    if (command.count("--try") > 0) {
        if (command.count("--exec") == 0) throw usageError("--try goes with --exec CMD");
        request.optimizedEnvironment.push_back(std::string(kTryVariable) + "=" +
                                               checkedProgramToggles(o.tryToggles));
    }
    request.name = o.name;
    request.target = o.target;
    request.repeats = repeats;
    request.warmup = command.count("--warmup") > 0 ? trainer.warmup : 1;
    request.stepRange = o.stepRange;
    request.glueRanges = o.glueRanges;
    request.device = command.count("--device") > 0 ? trainer.device : "auto";
    request.db = trainer.db;
    checkExecAbRequest(request);  // usage first (exit 1), then the files (exit 2)
    // The database's directory before the report's: the default report is named after it and
    // lives beside it (runExecAb checks the database itself before the first program runs).
    requireParentDirectory(trainer.db, "create trace database", "--db");
    requireParentDirectory(reportPath, "write report", "--report");
    requireOutputBesideDatabase(reportPath, trainer.db, "--report");

    const ExecAbOutcome outcome =
        runExecAb(request, [](int block, const std::string& arm, const std::string& ending) {
            std::cerr << fmt::format("glueprof: block {}: {} {}\n", block, arm, ending);
        });
    ResultsSelection selection;
    selection.pairs.emplace_back(outcome.baseline, outcome.optimized);
    Results results = buildResults(TraceReader(trainer.db), trainer.db, selection);
    writeReportAndShowVerdicts(results, reportPath, trainer.json);
    if (command.count("--try") > 0) sayWhatTheToggleDid(trainer.db, outcome.optimized);
    return 0;
}

}  // namespace glueprof::cli
