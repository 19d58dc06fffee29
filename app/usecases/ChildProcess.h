#pragma once
// A program glueprof starts and waits for (`glueprof profile`, `ab --exec`): started with its own
// environment in a process group of its own (the program's group: it and whatever it starts), in
// the terminal's foreground when glueprof is; ended with glueprof (PR_SET_PDEATHSIG for the child
// itself, the capture's LauncherWatch for the processes that record), its end told as an exit
// code and in words.
#include <sys/types.h>

#include <string>
#include <vector>

namespace glueprof {

struct ChildEnd {
    int exitCode = 0;  // its exit status, or 128 + the signal that ended it (as a shell says)
    bool signaled = false;
    std::string text;  // "exited with code 1", "was killed by signal 9 (Killed)"
};

// Starts `path` with `arguments` (argv, argv[0] included) and `environment` (NAME=VALUE each), as
// the leader of a new process group (its PID is the group's id). Throws an input error, after
// the child has ended, when it cannot be started (fork fails) or exec refuses the file ("cannot
// run 'PATH': Exec format error").
pid_t startChild(const std::string& path, const std::vector<std::string>& arguments,
                 const std::vector<std::string>& environment);

// Waits for the child to end. A SIGINT or SIGTERM this process notes meanwhile (an
// InterruptionScope is alive) is passed on to the child's whole process group, once of each kind
// (a terminal's Ctrl-C reaches the group itself when it is in the foreground). Gives the terminal
// back to glueprof's group when the child held it.
ChildEnd waitForChild(pid_t pid);

// A process named so that a later process with its PID is not taken for it.
struct ProcessIdentity {
    int pid = 0;
    long long startTime = 0;  // /proc/PID/stat's 22nd field; 0: not checked
};

// Ends what a program left running after its first process ended: every process still in
// `group`, and each of `others` still alive (the same process: its start time checked). Each gets
// SIGTERM, then SIGKILL after `graceMs` if it has not ended. Returns the PIDs that were running.
std::vector<int> endLeftoverProcesses(pid_t group, const std::vector<ProcessIdentity>& others,
                                      int graceMs);

// How a wait status ended, in words.
std::string describeProcessEnd(int status);

// This process's environment, NAME=VALUE each.
std::vector<std::string> currentEnvironment();

}  // namespace glueprof
