#include "app/cli/TorchForwarding.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include "app/cli/TorchCommands.h"
#include "profiler/core/Error.h"

namespace glueprof::cli {

namespace {

constexpr const char* kTorchExecutable = "glueprof-torch";

// The folder of this executable: /proc/self/exe's, resolved through links; where /proc is not
// mounted, argv[0]'s when it names a path (a name found on PATH has none).
std::filesystem::path ownFolder(const char* argv0) {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) return self.parent_path();
    if (std::strchr(argv0, '/') != nullptr) {
        return std::filesystem::weakly_canonical(argv0, error).parent_path();
    }
    return {};
}

}  // namespace

bool isTorchCommand(int argc, char** argv) {
    if (argc < 2) return false;
    for (const CommandDescription& command : kTorchCommands) {
        if (std::strcmp(argv[1], command.name) == 0) return true;
    }
    return false;
}

int runInTorchExecutable(char** argv) {
    const std::filesystem::path folder = ownFolder(argv[0]);
    const std::filesystem::path torch =
        folder.empty() ? std::filesystem::path(kTorchExecutable) : folder / kTorchExecutable;
    if (!folder.empty()) ::execv(torch.c_str(), argv);
    const std::string why =
        folder.empty() ? "its folder is unknown: no /proc/self/exe" : std::strerror(errno);
    std::cerr << "glueprof: cannot start " << torch.string() << " (" << why << "), which runs '"
              << argv[1] << "'; build it (make build) or install it beside glueprof\n";
    return static_cast<int>(ExitCode::kInput);
}

void listTorchCommands(CLI::App& app) {
    for (const CommandDescription& command : kTorchCommands) {
        app.add_subcommand(command.name, command.text);
    }
}

}  // namespace glueprof::cli
