#pragma once
// What /proc/PID/stat says of a process: its state, parent, process group and start time (clock
// ticks since boot; with the PID it names the process whatever later reuses the PID). One reader
// for the launcher (its program's group, leftovers), the capture (its note's start time, whether
// glueprof is its ancestor). Linux only; torch-free.
#include <optional>

namespace glueprof {

struct ProcessStat {
    char state = '?';  // R, S, D, Z (a zombie: it has ended), T, ...
    int parent = 0;
    int group = 0;
    long long startTime = 0;
    bool ended() const { return state == 'Z' || state == 'X'; }
};

// `pid`'s stat, this process's for 0; nullopt when it is gone (or /proc cannot be read).
std::optional<ProcessStat> readProcessStat(int pid);

}  // namespace glueprof
