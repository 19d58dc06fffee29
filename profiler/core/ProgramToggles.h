#pragma once
// The program toggles of `glueprof profile --try` and `ab --exec --try`: the fixes the advisor
// names, made inside the user's program by glueprof's start-up hook
// (profiler/inject/python/_glueprof_try.py) before it builds its optimizer, loaders and model,
// without editing it. The hook reports each as applied or not (the run's diagnostic
// program_toggles). docs/profile.md ("Trying a fix") says what each changes and when its
// results are bit-identical.
#include <string>
#include <vector>

namespace glueprof {

struct ProgramToggle {
    const char* name;
    const char* value;    // "" for none; else what NAME=VALUE takes ("N": a count)
    const char* changes;  // what it changes in the program
    const char* exact;    // whether the program's results stay bit-identical
};

const std::vector<ProgramToggle>& programToggles();

// The environment variable that carries the list into the program.
inline constexpr const char kTryVariable[] = "GLUEPROF_TRY";

// "NAME[=VALUE],..." checked against the catalogue: the list as the hook reads it. A usage error
// (exit 1) names an unknown toggle, a missing or bad value, or a repeated one.
std::string checkedProgramToggles(const std::string& list);

}  // namespace glueprof
