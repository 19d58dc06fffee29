// glueprof-torch: the half of the CLI that links libtorch (the trainer, the op observer, CUPTI).
// `glueprof` hands it the commands that need it (TorchForwarding); it has every command, so it
// also runs alone.
#include "app/cli/CliMain.h"
#include "app/cli/RankLauncher.h"

int main(int argc, char** argv) {
    using namespace glueprof::cli;
    rememberCommandLine(argc, argv);  // what `--nproc` starts each rank with
    return runCommandLine(argc, argv, [](CLI::App& app, Action& action) {
        registerAbCommand(app, action);
        registerRunCommand(app, action);
        registerSimulateCommand(app, action);
        registerProfileCommand(app, action);
        registerDoctorCommand(app, action);
        registerDatabaseCommands(app, action);
    });
}
