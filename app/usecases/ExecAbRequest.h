#pragma once
// The `glueprof ab --exec` use case: two versions of the user's program (two commands, or one
// command with each arm's environment) run as separate processes in interleaved blocks — block k
// runs baseline then optimized when k is odd, optimized then baseline when even, as `ab` does —
// each through `glueprof profile`'s capture. Each arm's block runs are then one run of the database
// (an A/B pair: arms baseline and optimized, the A/B's name in the toggle column), steps numbered
// on from block to block and tagged with their block, so every reader (report, compare, check, the
// GUI) compares them as it compares a toggle's arms. Torch-free header.
#include <functional>
#include <string>
#include <vector>

#include "profiler/core/Event.h"

namespace glueprof {

struct ExecAbRequest {
    std::vector<std::string> baseline;   // the command of each arm
    std::vector<std::string> optimized;  // (the same command when only the environments differ)
    std::vector<std::string> baselineEnvironment;  // NAME=VALUE for that arm's processes
    std::vector<std::string> optimizedEnvironment;
    std::string name = "exec";  // the A/B's name: `check` baselines key on it
    std::string target;         // the program's range the change targets ("" = none)
    int repeats = 3;            // blocks
    int warmup = 1;             // steps of each process marked warm-up
    std::string stepRange;
    std::vector<std::string> glueRanges;
    std::string device = "auto";
    std::string db = "runs.sqlite";
};

struct ExecAbOutcome {
    RunId baseline = 0;
    RunId optimized = 0;
    std::vector<std::string> notices;
};

// What the caller hears as each arm's process ends: the block, the arm, how it ended.
using ExecAbProgress = std::function<void(int block, const std::string& arm, const std::string&)>;

// Usage errors: no command, a bad NAME=VALUE, --repeats below 1. Input errors: a program that
// fails (the block and arm named, with its exit code; nothing is stored), those of runProfile.
// Refuses (usage error) a request that is incomplete or malformed: what runExecAb checks first,
// for a caller with more to check before it runs anything.
void checkExecAbRequest(const ExecAbRequest& request);

ExecAbOutcome runExecAb(const ExecAbRequest& request, const ExecAbProgress& progress = {});

// A command given as one string, split as a shell splits words (quotes and backslashes; no
// expansion): "python3 train.py --packed-cache".
std::vector<std::string> splitCommand(const std::string& command);

}  // namespace glueprof
