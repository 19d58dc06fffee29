#include "app/usecases/ProfiledProgram.h"

#include <elf.h>
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

// The words of a `#!` line ("#!/usr/bin/env -S python3 -I" -> /usr/bin/env, -S, python3, -I);
// empty when the file has none.
std::vector<std::string> shebangWords(const std::string& path) {
    const std::string head = firstBytes(path, 512);
    if (head.rfind("#!", 0) != 0) return {};
    std::stringstream line(head.substr(2, head.find('\n') - 2));
    std::vector<std::string> words;
    for (std::string word; line >> word;) words.push_back(word);
    return words;
}

// The python a `#!` line names ("#!/usr/bin/env python3", "#!/opt/venv/bin/python"), or "";
// `options` gets the words after it (the interpreter's options on that line).
std::string pythonOfShebang(const std::string& path, std::vector<std::string>* options) {
    const std::vector<std::string> words = shebangWords(path);
    if (words.empty()) return "";
    std::size_t python = 0;
    if (fs::path(words[0]).filename() == "env") {
        python = 1;
        while (python < words.size() && words[python].rfind('-', 0) == 0) ++python;  // env -S
        if (python >= words.size() || !isPythonName(words[python])) return "";
    } else if (!isPythonName(fs::path(words[0]).filename().string())) {
        return "";
    }
    options->assign(words.begin() + static_cast<std::ptrdiff_t>(python) + 1, words.end());
    return python == 0 ? words[0] : findProgram(words[python]);
}

// The interpreter options among `words` (what comes before the script, -c or -m) that keep
// glueprof's start-up hook out: -E and -I ignore PYTHONPATH, where the hook is; -S imports no
// site, so no sitecustomize runs. Each as the user wrote it ("-I", "-uE"), "" when none.
std::string optionKeepingTheHookOut(const std::vector<std::string>& words) {
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (word == "--" || word == "-" || word.rfind('-', 0) != 0) return "";
        if (word.rfind("--", 0) == 0) {  // a long option; one takes a value
            if (word == "--check-hash-based-pycs") ++i;
            continue;
        }
        for (std::size_t k = 1; k < word.size(); ++k) {
            const char letter = word[k];
            if (letter == 'E' || letter == 'I' || letter == 'S') return word;
            if (letter == 'c' || letter == 'm') return "";  // the rest is the program
            if (letter == 'W' || letter == 'X') {           // the value follows
                if (k + 1 == word.size()) ++i;
                break;
            }
        }
    }
    return "";
}

// execve runs an ELF program or a script whose `#!` line names an interpreter that is there; for
// anything else it fails (a shell would run a file without `#!` itself; exec does not). Refused
// before anything runs, in one line that says how to run it.
void requireRunnable(const std::string& path) {
    if (firstBytes(path, 4) ==
        "\x7f"
        "ELF")
        return;
    const std::vector<std::string> words = shebangWords(path);
    if (words.empty()) {
        throw inputError(fmt::format(
            "'{}' is neither a program nor a script with a #! line, so it cannot be run as a "
            "command: add a #! line, or name its interpreter (glueprof profile -- sh {})",
            path, path));
    }
    if (!isExecutableFile(words[0])) {
        throw inputError(fmt::format(
            "'{}' names the interpreter '{}' on its #! line, which {}: fix its #! line, or name "
            "an interpreter that is there (glueprof profile -- python3 {})",
            path, words[0], fs::exists(words[0]) ? "is not executable" : "does not exist", path));
    }
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
    "print('glueprof-torch-version:' + v)\n"
    "print('glueprof-torch-location:' + (os.path.dirname(s.origin) if s is not None and "
    "s.origin else ''))\n";

// The probe's answers are told by their prefixes: a sitecustomize or a .pth file of the user's
// may print lines of its own first.
void readPythonTorch(ProfiledProgram& program) {
    std::stringstream lines(outputOf(
        program.interpreter, {program.interpreter, "-c", kPythonTorchProbe}, currentEnvironment()));
    for (std::string line; std::getline(lines, line);) {
        static const std::string version = "glueprof-torch-version:";
        static const std::string location = "glueprof-torch-location:";
        if (line.rfind(version, 0) == 0) program.torchVersion = line.substr(version.size());
        if (line.rfind(location, 0) == 0) program.torchLocation = line.substr(location.size());
    }
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

// The dynamic loader an ELF program names (its PT_INTERP segment), read from the file: "" for a
// statically linked program (nothing can be preloaded into it, and it links no libtorch.so) or a
// file that is not a 64-bit little-endian ELF.
std::string elfInterpreter(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    Elf64_Ehdr header{};
    if (!in.read(reinterpret_cast<char*>(&header), sizeof header) ||
        std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
        header.e_phentsize != sizeof(Elf64_Phdr))
        return "";
    for (int i = 0; i < header.e_phnum; ++i) {
        Elf64_Phdr segment{};
        in.seekg(static_cast<std::streamoff>(header.e_phoff + i * sizeof segment));
        if (!in.read(reinterpret_cast<char*>(&segment), sizeof segment)) return "";
        if (segment.p_type != PT_INTERP || segment.p_filesz == 0 || segment.p_filesz > 4096)
            continue;
        std::string interpreter(segment.p_filesz, '\0');
        in.seekg(static_cast<std::streamoff>(segment.p_offset));
        if (!in.read(interpreter.data(), static_cast<std::streamsize>(interpreter.size())))
            return "";
        return interpreter.substr(0, interpreter.find('\0'));
    }
    return "";
}

void readNativeTorch(ProfiledProgram& program) {
    // The program itself is never run to look at it (a static one ignores the loader's variables
    // and would run in full): its loader lists the libraries (`ld.so --list`, as ldd does) when it
    // is the system's, and nothing runs for a program without one.
    const std::string loader = elfInterpreter(program.path);
    static const std::regex systemLoader(R"(ld-linux[-.a-z0-9_]*\.so(\.[0-9]+)*|ld-[0-9.]+\.so)");
    if (loader.empty() || !std::regex_match(fs::path(loader).filename().string(), systemLoader) ||
        !isExecutableFile(loader))
        return;
    std::stringstream lines(
        outputOf(loader, {loader, "--list", program.path}, currentEnvironment()));
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
    requireRunnable(program.path);
    std::vector<std::string> options;
    std::string hookOut;
    if (isPythonName(fs::path(program.path).filename().string())) {
        program.kind = ProgramKind::kPython;
        program.interpreter = program.path;
        hookOut = optionKeepingTheHookOut({command.begin() + 1, command.end()});
    } else if (const std::string python = pythonOfShebang(program.path, &options);
               !python.empty()) {
        program.kind = ProgramKind::kPython;
        program.interpreter = python;
        hookOut = optionKeepingTheHookOut(options);
    }
    if (!hookOut.empty()) {
        throw inputError(fmt::format(
            "'{}' starts Python with '{}', which keeps glueprof's start-up hook out (-E and -I "
            "ignore PYTHONPATH, where the hook is; -S runs no sitecustomize): run it without -E, "
            "-I and -S{}",
            command.front(), hookOut,
            program.path == program.interpreter ? "" : " (on its #! line too)"));
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
