// glueprof profile: the user's own program (python train.py, torchrun ..., a C++ libtorch program)
// run with glueprof's capture inside it, its runs stored and summarized (docs/profile.md).
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "app/cli/Commands.h"
#include "app/cli/TorchCommands.h"
#include "app/report/CommandJson.h"
#include "app/report/Results.h"
#include "app/report/ResultsText.h"
#include "app/usecases/ProfileRequest.h"
#include "profiler/core/Error.h"
#include "profiler/core/ProgramToggles.h"
#include "profiler/core/TraceReader.h"

namespace glueprof::cli {

namespace {

// The most events of a run whose analysis `profile` prints itself (about 0.5 GB analyzed).
constexpr std::int64_t kSummaryEventLimit = 3'000'000;

struct ProfileCliOptions {
    ProfileRequest request;
    bool json = false;
    std::string tryToggles;  // --try: program toggles (ProgramToggles.h)
};

int profileProgram(const ProfileCliOptions& options) {
    ProfileCliOptions o = options;
    if (!options.tryToggles.empty())
        o.request.environment.push_back(std::string(kTryVariable) + "=" +
                                        checkedProgramToggles(options.tryToggles));
    const ProfileResult profiled = runProfile(o.request);
    for (const std::string& line : profiled.notices) std::cerr << "glueprof: " << line << "\n";
    if (profiled.runs.empty()) {  // every trace file unreadable: the notices said which
        std::cerr << fmt::format("glueprof: the program {}; nothing it recorded could be read\n",
                                 profiled.ending);
        return profiled.exitCode != 0 ? profiled.exitCode : static_cast<int>(ExitCode::kInput);
    }
    // The summary analyzes the run in memory (about 150 bytes an event): a run larger than
    // kSummaryEventLimit is stored (in flat memory) and named, its analysis left to `report`.
    const RunId first = profiled.runs.front();
    const TraceReader reader(o.request.db);
    const std::int64_t events = reader.eventCount(first);
    if (events > kSummaryEventLimit) {
        const std::string how = fmt::format(
            "run {} holds {} events, more than the summary analyzes here ({}): its analysis is "
            "`glueprof report --db {} --runs {} --format md --out report.md`",
            first, events, kSummaryEventLimit, o.request.db, first);
        if (o.json) {
            std::cout << renderProfileSummaryJson(
                {o.request.db, profiled.exitCode, profiled.ending}, profiled.runs, events, how);
        } else {
            std::cout << fmt::format("glueprof: the program {}\n{}\ndatabase: {}\n",
                                     profiled.ending, how, o.request.db);
        }
        return profiled.exitCode;
    }
    const Results results = buildResults(reader, o.request.db, {{first}, {}});
    if (o.json) {
        std::cout << renderProfileJson({o.request.db, profiled.exitCode, profiled.ending}, results);
    } else {
        std::cout << fmt::format("glueprof: the program {}\n", profiled.ending);
        std::cout << renderRunSummary(results.runs.front(), o.request.db);
        if (const RankSet* ranks = results.rankSetOf(0))
            std::cout << renderRankLines(results, *ranks);
    }
    return profiled.exitCode;
}

}  // namespace

void registerProfileCommand(CLI::App& app, Action& action) {
    auto options = std::make_shared<ProfileCliOptions>();
    CLI::App* command = app.add_subcommand(kProfileDescription.name, kProfileDescription.text);
    command->add_option("command", options->request.command, "the program and its arguments")
        ->required();
    command->add_option("--db", options->request.db, "trace database to add the runs to")
        ->capture_default_str();
    command->add_option("--label", options->request.label,
                        "run label (default: the script's or the program's name)");
    command->add_option("--step-range", options->request.stepRange,
                        "each range of this name (record_function) is one step (default: "
                        "ProfilerStep#N, else each optimizer step, else the whole run)");
    command
        ->add_option("--warmup", options->request.warmup,
                     "the first N steps found are warm-up (left out of the statistics)")
        ->capture_default_str();
    command->add_option("--glue", options->request.glueRanges,
                        "a range name (record_function) whose ops are glue (repeatable; "
                        "build_packed_mask and moe_routing always are)");
    command
        ->add_option("--device", options->request.device,
                     "auto: capture GPU activity where torch sees a GPU; cpu; cuda")
        ->capture_default_str();
    command->add_flag("--json", options->json, "print the runs' analysis as JSON");
    command->add_option("--try", options->tryToggles,
                        "run the program with these program toggles applied, NAME[=VALUE],... "
                        "(fused_optimizer, loader_workers=N, pinned_loader, hf_grouped_experts, "
                        "...: docs/profile.md); the run's diagnostic program_toggles says what "
                        "each did");
    command->positionals_at_end();
    command->callback(
        [options, &action] { action = [options] { return profileProgram(*options); }; });
}

}  // namespace glueprof::cli
