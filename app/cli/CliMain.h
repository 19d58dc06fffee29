#pragma once
// The command line of both executables (glueprof, glueprof-torch): registers the commands it is
// given, parses, runs the chosen one and maps errors to the documented exit codes (docs/cli.md):
// 0 ok, 1 usage, 2 input/IO/config, 3 regression.
#include <functional>

#include "app/cli/Commands.h"

namespace glueprof::cli {

using Registration = std::function<void(CLI::App& app, Action& action)>;

int runCommandLine(int argc, char** argv, const Registration& registerCommands);

}  // namespace glueprof::cli
