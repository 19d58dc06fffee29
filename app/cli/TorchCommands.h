#pragma once
// The one-line descriptions of the commands that need libtorch (docs/cli.md, "Two executables"):
// `glueprof` lists them in its help and hands them to `glueprof-torch`, which registers them with
// their options. One text for both, so the two helps never disagree.
#include <array>

namespace glueprof::cli {

struct CommandDescription {
    const char* name;
    const char* text;
};

inline constexpr CommandDescription kAbDescription{
    "ab", "A/B-compare toggles on the reference trainer (interleaved blocks, same batches)"};
inline constexpr CommandDescription kRunDescription{"run",
                                                    "one traced run of the reference trainer"};
inline constexpr CommandDescription kSimulateDescription{
    "simulate",
    "simulate a pipeline schedule (gpipe, 1f1b, looped-bfs, roundpipe): makespan and bubble "
    "ratio"};
inline constexpr CommandDescription kProfileDescription{
    "profile",
    "run your own torch program (python train.py, torchrun ..., a C++ libtorch program) with "
    "glueprof's capture inside it, unchanged: glueprof profile [options] -- CMD ARGS..."};
inline constexpr CommandDescription kDoctorDescription{"doctor",
                                                       "what this build and machine can capture"};

// In the order `glueprof --help` lists them (before the commands that read a database).
inline constexpr std::array<CommandDescription, 5> kTorchCommands{
    kAbDescription, kRunDescription, kSimulateDescription, kProfileDescription, kDoctorDescription};

}  // namespace glueprof::cli
