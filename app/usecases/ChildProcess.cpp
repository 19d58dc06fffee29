#include "app/usecases/ChildProcess.h"

#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"

extern char** environ;

namespace glueprof {

namespace {

std::vector<char*> pointersOf(std::vector<std::string>& texts) {
    std::vector<char*> pointers;
    for (std::string& text : texts) pointers.push_back(text.data());
    pointers.push_back(nullptr);
    return pointers;
}

}  // namespace

std::vector<std::string> currentEnvironment() {
    std::vector<std::string> variables;
    for (char** e = environ; *e != nullptr; ++e) variables.emplace_back(*e);
    return variables;
}

pid_t startChild(const std::string& path, const std::vector<std::string>& arguments,
                 const std::vector<std::string>& environment) {
    // Everything exec needs is built before the fork: the child only calls async-signal-safe
    // functions (this process may run other threads).
    std::string file = path;
    std::vector<std::string> argumentCopy = arguments;
    std::vector<std::string> environmentCopy = environment;
    std::vector<char*> argv = pointersOf(argumentCopy);
    std::vector<char*> envp = pointersOf(environmentCopy);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        throw GlueprofError(ExitCode::kInput, fmt::format("cannot start '{}': fork failed ({})",
                                                          path, std::strerror(errno)));
    }
    if (pid > 0) return pid;
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the program ends when glueprof does, however it ends
    if (::getppid() != parent) ::_exit(127);
    ::execve(file.c_str(), argv.data(), envp.data());
    static const char kFailed[] = "glueprof: exec of the program failed\n";
    (void)!::write(STDERR_FILENO, kFailed, sizeof(kFailed) - 1);
    ::_exit(127);
}

std::string describeProcessEnd(int status) {
    if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                           ::strsignal(WTERMSIG(status)));
    }
    return "ended";
}

ChildEnd waitForChild(pid_t pid) {
    bool passedOn = false;
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) {
            throw GlueprofError(ExitCode::kInput, fmt::format("lost the program (waitpid: {})",
                                                              std::strerror(errno)));
        }
        if (!passedOn && pendingInterruption() == SIGTERM) {
            ::kill(pid, SIGTERM);
            passedOn = true;
        }
        ::usleep(20'000);
    }
    ChildEnd end;
    end.signaled = WIFSIGNALED(status);
    end.exitCode =
        WIFEXITED(status) ? WEXITSTATUS(status) : (end.signaled ? 128 + WTERMSIG(status) : 2);
    end.text = describeProcessEnd(status);
    return end;
}

}  // namespace glueprof
