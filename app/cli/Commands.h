#pragma once
// Each command registers its subcommand and the action to run when it is chosen.
#include <CLI/CLI.hpp>

#include <functional>

namespace glueprof::cli {

using Action = std::function<int()>;  // returns the exit code (docs/cli.md)

void registerAbCommand(CLI::App& app, Action& action);
void registerRunCommand(CLI::App& app, Action& action);
void registerListCommand(CLI::App& app, Action& action);
void registerDoctorCommand(CLI::App& app, Action& action);
void registerAdviseCommand(CLI::App& app, Action& action);
void registerCheckCommand(CLI::App& app, Action& action);
void registerExportCommand(CLI::App& app, Action& action);
void registerReportCommand(CLI::App& app, Action& action);
void registerSimulateCommand(CLI::App& app, Action& action);
void registerImportCommand(CLI::App& app, Action& action);
void registerCompareCommand(CLI::App& app, Action& action);
void registerProfileCommand(CLI::App& app, Action& action);

// The commands that read and write trace databases without libtorch (list, advise, check, export,
// report, import, compare): both executables have them (DatabaseCommands.cpp).
void registerDatabaseCommands(CLI::App& app, Action& action);

}  // namespace glueprof::cli
