// glueprof: the headless CLI. The commands that read and write trace databases run here, without
// libtorch; the ones that need it run in glueprof-torch (TorchForwarding).
#include "app/cli/CliMain.h"
#include "app/cli/TorchForwarding.h"

int main(int argc, char** argv) {
    using namespace glueprof::cli;
    if (isTorchCommand(argc, argv)) return runInTorchExecutable(argv);
    return runCommandLine(argc, argv, [](CLI::App& app, Action& action) {
        listTorchCommands(app);
        registerDatabaseCommands(app, action);
    });
}
