#pragma once
// `glueprof ab --exec`: the options that make `ab` compare two versions of the user's program
// instead of a toggle of the reference trainer (app/usecases/ExecAbRequest.h), and the command.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "app/cli/TrainerOptions.h"

namespace glueprof::cli {

struct AbExecOptions {
    std::string exec;  // one command for both arms
    std::string baseline;
    std::string optimized;
    std::string baselineArgs;  // appended to --exec's command for that arm
    std::string optimizedArgs;
    std::vector<std::string> baselineEnvironment;
    std::vector<std::string> optimizedEnvironment;
    std::string target;
    std::string name = "exec";
    std::string stepRange;
    std::vector<std::string> glueRanges;
    std::string tryToggles;  // --try: program toggles for the optimized arm (ProgramToggles.h)

    void addTo(CLI::App& command);
    // Whether any option of the exec form was given (even empty: `--exec ""` is refused, not
    // taken for the trainer's A/B).
    bool wanted(const CLI::App& command) const;
};

// Runs the A/B of the two commands and prints its verdicts as `ab` does (and writes its report).
// `command`: the ab subcommand (which trainer options were given: they do not apply).
int runAbExec(const AbExecOptions& exec, const TrainerOptions& trainer, int repeats,
              const std::string& reportPath, const CLI::App& command);

}  // namespace glueprof::cli
