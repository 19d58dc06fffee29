#pragma once
// How `glueprof` runs the commands that need libtorch (run, ab, simulate, profile, doctor): it
// replaces itself (execv) with `glueprof-torch` from its own directory, with the same arguments.
// The commands that only read and write databases (import, report, check, ...) run in `glueprof`
// itself, which links no libtorch: they start in milliseconds instead of the second and ~470 MiB
// that loading libtorch and its CUDA libraries takes (docs/cli.md, "Two executables").
#include "app/cli/Commands.h"

namespace glueprof::cli {

// True when argv[1] names a command glueprof-torch runs.
bool isTorchCommand(int argc, char** argv);

// Replaces this process with glueprof-torch, same arguments (argv[0] kept, so its help reads
// `glueprof`). Returns only when that fails, with the exit code after printing why.
int runInTorchExecutable(char** argv);

// The torch commands in `glueprof --help`, with their descriptions; none is ever parsed here.
void listTorchCommands(CLI::App& app);

}  // namespace glueprof::cli
