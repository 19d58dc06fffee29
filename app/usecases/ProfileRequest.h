#pragma once
// The `glueprof profile` use case: run the user's program with glueprof's capture inside it
// (profiler/inject) and store what it recorded — one run per recording process (each rank under
// torchrun, merged as `run --nproc` merges its ranks) — in the database. The program's exit code
// is passed through; a program that ends badly keeps every step it finished (its run ends
// aborted). Torch-free header.
#include <string>
#include <vector>

#include "profiler/core/Event.h"

namespace glueprof {

struct ProfileRequest {
    std::vector<std::string> command;  // CMD ARGS...
    std::string db = "runs.sqlite";
    std::string label;      // "" = the program's name (the script's, for python SCRIPT)
    std::string stepRange;  // "" = steps found automatically (docs/profile.md)
    int warmup = 1;         // steps marked warm-up
    std::vector<std::string> glueRanges;  // the program's ranges whose ops are glue
    std::string device = "auto";          // auto: cuda where torch sees a GPU
    // ab --exec: the arm and block these runs are, and extra NAME=VALUE for the program.
    std::string arm;
    int block = 0;
    std::vector<std::string> environment;
};

struct ProfileResult {
    std::vector<RunId> runs;  // in the database: one per recording process, rank by rank
    int exitCode = 0;         // the program's (128 + N for a signal)
    std::string ending;       // "exited with code 0", "was killed by signal 9 (Killed)"
    bool torchSeen = true;    // false: no process imported torch (one run with no ops was stored)
    std::vector<std::string> notices;  // what the user should know (ranks missing, no torch, ...)
};

// Usage errors: no command, a bad option value. Input errors (before the program runs): command
// not found, another torch than glueprof's, an unusable database; after it ran: the capture
// refused (its reason). Runs the program in the foreground; SIGTERM to glueprof reaches it.
ProfileResult runProfile(const ProfileRequest& request);

// Removes what launches on DB left when they were killed and are gone (their process no longer
// runs): a profile's process file (its traces are merged as leftovers), an ab --exec's scratch
// database and everything beside it (an A/B is stored only whole). Called as profile and ab --exec
// start.
void removeSideFilesOfEndedLaunches(const std::string& db);

// The label of a profiled program: the script of `python [opts] SCRIPT` or `-m MODULE`, else the
// program's file name.
std::string programLabel(const std::vector<std::string>& command);

}  // namespace glueprof
