#include "app/cli/TorchForwarding.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include "app/cli/CommandDescriptions.h"
#include "profiler/core/Error.h"

namespace glueprof::cli {

namespace {
constexpr const char* kTorchExecutable = "glueprof-torch";
}

bool isTorchCommand(int argc, char** argv) {
    if (argc < 2) return false;
    for (const CommandDescription& command : kTorchCommands) {
        if (std::strcmp(argv[1], command.name) == 0) return true;
    }
    return false;
}

int runInTorchExecutable(char** argv) {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    const std::filesystem::path torch = self.parent_path() / kTorchExecutable;
    if (!error) ::execv(torch.c_str(), argv);
    const std::string why = error ? error.message() : std::strerror(errno);
    std::cerr << "glueprof: cannot start " << (error ? kTorchExecutable : torch.string()) << " ("
              << why << "), which runs '" << argv[1] << "'; build it (make build) or install it "
              << "beside glueprof\n";
    return static_cast<int>(ExitCode::kInput);
}

void listTorchCommands(CLI::App& app) {
    for (const CommandDescription& command : kTorchCommands) {
        app.add_subcommand(command.name, command.text);
    }
}

}  // namespace glueprof::cli
