#pragma once
// The program `glueprof profile` is asked to run, looked at before it runs: where it is, whether
// Python runs it (then the start-up hook brings the capture in) or it is a native program (then
// LD_PRELOAD does), and which torch it would run — refused when that torch is not glueprof's, since
// the capture shares the process's libtorch.
#include <string>
#include <vector>

namespace glueprof {

enum class ProgramKind {
    kPython,  // a python interpreter, or a script whose #! line names one
    kNative,  // an ELF executable (a C++ libtorch program), or anything else run as it is
};

struct ProfiledProgram {
    std::string path;  // resolved through PATH like a shell does
    ProgramKind kind = ProgramKind::kNative;
    std::string interpreter;  // kPython: the python that will run it
    // The torch it would run ("2.11.0", "2.11.0+cu130"; "" when it has none) and where.
    std::string torchVersion;
    std::string torchLocation;
    bool linksTorch = false;  // kNative: libtorch is among its libraries
};

// Resolves command[0] and reads what the program would run. Input errors (exit 2): an empty
// command, a command not found or not executable, a torch other than `glueprofTorch` (the
// version glueprof was built against, "2.11.0+cu130": compared without the build tag when the
// program's torch only says its release).
ProfiledProgram inspectProgram(const std::vector<std::string>& command,
                               const std::string& glueprofTorch);

// "2.11.0+cu130" -> "2.11.0".
std::string torchRelease(const std::string& version);

}  // namespace glueprof
