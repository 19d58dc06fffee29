#include "app/usecases/ProfiledProgram.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "app/usecases/ChildProcess.h"
#include "profiler/core/Error.h"
#include "profiler/cupti/LoadedLibrary.h"

namespace glueprof {

namespace {

namespace fs = std::filesystem;

bool isExecutableFile(const std::string& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// command[0] as a shell finds it: a name with a slash as it is, else the first PATH entry.
std::string findProgram(const std::string& name) {
    if (name.find('/') != std::string::npos) {
        std::error_code ec;
        if (!fs::exists(name, ec)) {
            throw inputError(fmt::format("command not found: '{}' does not exist", name));
        }
        if (!isExecutableFile(name)) {
            throw inputError(fmt::format(
                "'{}' is not an executable file (chmod +x it, or run it with its interpreter: "
                "glueprof profile -- python3 {})",
                name, name));
        }
        return fs::absolute(name).lexically_normal().string();
    }
    const char* path = std::getenv("PATH");
    std::stringstream entries(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string entry; std::getline(entries, entry, ':');) {
        const std::string candidate = (entry.empty() ? std::string(".") : entry) + "/" + name;
        if (isExecutableFile(candidate)) return fs::absolute(candidate).lexically_normal().string();
    }
    throw inputError(fmt::format(
        "command not found: '{}' is in no folder of PATH (give its path, e.g. ./{})", name, name));
}

std::string firstBytes(const std::string& path, std::size_t count) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes(count, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(count));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    return bytes;
}

bool isPythonName(const std::string& name) {
    static const std::regex python("python[0-9.]*");
    return std::regex_match(name, python);
}

// The python a `#!` line names ("#!/usr/bin/env python3", "#!/opt/venv/bin/python"), or "".
std::string pythonOfShebang(const std::string& path) {
    const std::string head = firstBytes(path, 512);
    if (head.rfind("#!", 0) != 0) return "";
    std::stringstream line(head.substr(2, head.find('\n') - 2));
    std::string first;
    std::string second;
    line >> first >> second;
    if (fs::path(first).filename() == "env") {
        if (second == "-S") line >> second;
        return isPythonName(second) ? findProgram(second) : "";
    }
    return isPythonName(fs::path(first).filename().string()) ? first : "";
}

// What a program prints on stdout (at most 1 MiB), run with `environment` and no stdin.
std::string outputOf(const std::string& path, const std::vector<std::string>& arguments,
                     const std::vector<std::string>& environment) {
    int fds[2];
    if (::pipe(fds) != 0) throw inputError("cannot create a pipe to look at the program");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> argumentCopy = arguments;
    std::vector<std::string> environmentCopy = environment;
    std::vector<char*> argv;
    for (std::string& a : argumentCopy) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (std::string& e : environmentCopy) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    const int spawned =
        posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    std::string output;
    if (spawned == 0) {
        char buffer[4096];
        for (;;) {
            const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            if (output.size() < (1u << 20)) output.append(buffer, static_cast<std::size_t>(n));
        }
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    ::close(fds[0]);
    return output;
}

constexpr const char kPythonTorchProbe[] =
    "import importlib.util as u, os\n"
    "s = u.find_spec('torch')\n"
    "v = ''\n"
    "if s is not None:\n"
    "    try:\n"
    "        import importlib.metadata as m; v = m.version('torch')\n"
    "    except Exception:\n"
    "        v = 'unknown'\n"
    "print(v)\n"
    "print(os.path.dirname(s.origin) if s is not None and s.origin else '')\n";

void readPythonTorch(ProfiledProgram& program) {
    std::stringstream lines(outputOf(
        program.interpreter, {program.interpreter, "-c", kPythonTorchProbe}, currentEnvironment()));
    std::getline(lines, program.torchVersion);
    std::getline(lines, program.torchLocation);
}

// The version a libtorch folder says it is: torch/version.py beside a wheel's lib/, or the
// build-version file of a libtorch zip; "" when neither says.
std::string versionOfLibtorch(const fs::path& libraryFolder) {
    std::ifstream versionPy(libraryFolder.parent_path() / "version.py");
    static const std::regex versionLine(R"(__version__\s*=\s*['"]([^'"]+)['"].*)");
    for (std::string line; std::getline(versionPy, line);) {
        std::smatch match;
        if (std::regex_match(line, match, versionLine)) return match[1];
    }
    std::ifstream buildVersion(libraryFolder.parent_path() / "build-version");
    std::string version;
    std::getline(buildVersion, version);
    return version;
}

void readNativeTorch(ProfiledProgram& program) {
    if (firstBytes(program.path, 4) !=
        "\x7f"
        "ELF")
        return;
    std::vector<std::string> environment = currentEnvironment();
    environment.push_back("LD_TRACE_LOADED_OBJECTS=1");  // the loader lists, runs nothing
    std::stringstream lines(outputOf(program.path, {program.path}, environment));
    static const std::regex torchLine(R"(\s*libtorch_cpu\.so\S*\s+=>\s+(\S+)\s.*)");
    for (std::string line; std::getline(lines, line);) {
        std::smatch match;
        if (!std::regex_match(line, match, torchLine)) continue;
        program.linksTorch = true;
        const fs::path library = match[1].str();
        program.torchLocation = library.parent_path().string();
        const std::string ours = cupti::loadedLibraryPath("libtorch_cpu.so");
        std::error_code ec;
        if (!ours.empty() && fs::equivalent(library, ours, ec)) {
            program.torchVersion = "";  // glueprof's own libtorch: nothing to compare
            return;
        }
        program.torchVersion = versionOfLibtorch(library.parent_path());
        if (program.torchVersion.empty()) program.torchVersion = "unknown";
        return;
    }
}

}  // namespace

std::string torchRelease(const std::string& version) {
    return version.substr(0, version.find('+'));
}

ProfiledProgram inspectProgram(const std::vector<std::string>& command,
                               const std::string& glueprofTorch) {
    if (command.empty() || command.front().empty()) {
        throw GlueprofError(ExitCode::kUsage,
                            "no command to profile: glueprof profile [options] -- CMD ARGS...");
    }
    ProfiledProgram program;
    program.path = findProgram(command.front());
    if (isPythonName(fs::path(program.path).filename().string())) {
        program.kind = ProgramKind::kPython;
        program.interpreter = program.path;
    } else if (const std::string python = pythonOfShebang(program.path); !python.empty()) {
        program.kind = ProgramKind::kPython;
        program.interpreter = python;
    }
    if (program.kind == ProgramKind::kPython) {
        readPythonTorch(program);
    } else {
        readNativeTorch(program);
    }
    if (program.torchVersion.empty()) return program;
    const bool releaseOnly = program.torchVersion.find('+') == std::string::npos;
    const bool same = releaseOnly ? torchRelease(glueprofTorch) == program.torchVersion
                                  : glueprofTorch == program.torchVersion;
    if (!same) {
        throw inputError(fmt::format(
            "'{}' would run torch {} ({}) but glueprof was built against torch {}: the capture "
            "shares the program's libtorch, so they must be one; run it with glueprof's Python "
            "(scripts/torch-env.sh --python) or build glueprof against that torch (TORCH_DIR=...)",
            command.front(), program.torchVersion,
            program.torchLocation.empty() ? "location unknown" : program.torchLocation,
            glueprofTorch));
    }
    return program;
}

}  // namespace glueprof
