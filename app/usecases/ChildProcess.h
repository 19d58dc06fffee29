#pragma once
// A program glueprof starts and waits for (`glueprof profile`, `ab --exec`): started with its own
// environment, ended with glueprof (PR_SET_PDEATHSIG), its end told as an exit code and in words.
#include <sys/types.h>

#include <string>
#include <vector>

namespace glueprof {

struct ChildEnd {
    int exitCode = 0;  // its exit status, or 128 + the signal that ended it (as a shell says)
    bool signaled = false;
    std::string text;  // "exited with code 1", "was killed by signal 9 (Killed)"
};

// Starts `path` with `arguments` (argv, argv[0] included) and `environment` (NAME=VALUE each);
// throws an input error when it cannot be started (fork fails). An exec failure ends the child
// with 127 after one line on stderr.
pid_t startChild(const std::string& path, const std::vector<std::string>& arguments,
                 const std::vector<std::string>& environment);

// Waits for the child to end. A SIGTERM this process notes meanwhile (an InterruptionScope is
// alive) is passed on to the child once; a SIGINT is not (a terminal's Ctrl-C reaches the child
// itself, as one process group).
ChildEnd waitForChild(pid_t pid);

// How a wait status ended, in words.
std::string describeProcessEnd(int status);

// This process's environment, NAME=VALUE each.
std::vector<std::string> currentEnvironment();

}  // namespace glueprof
