// The commands both executables have (docs/cli.md, "Two executables"): they read and write trace
// databases and need no libtorch.
#include "app/cli/Commands.h"

namespace glueprof::cli {

void registerDatabaseCommands(CLI::App& app, Action& action) {
    registerListCommand(app, action);
    registerAdviseCommand(app, action);
    registerCheckCommand(app, action);
    registerExportCommand(app, action);
    registerReportCommand(app, action);
    registerImportCommand(app, action);
    registerCompareCommand(app, action);
}

}  // namespace glueprof::cli
