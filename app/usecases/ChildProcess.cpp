#include "app/usecases/ChildProcess.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>

#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/ProcessStat.h"

extern char** environ;

namespace glueprof {

namespace {

std::vector<char*> pointersOf(std::vector<std::string>& texts) {
    std::vector<char*> pointers;
    for (std::string& text : texts) pointers.push_back(text.data());
    pointers.push_back(nullptr);
    return pointers;
}

// Whether glueprof's group holds the terminal on stdin: the program's group then takes it while
// it runs, as a shell gives a job the terminal, so that Ctrl-C and a read from the terminal reach
// the program and not glueprof.
bool holdsTerminal() { return ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp(); }

// tcsetpgrp from a group that is not (or no longer) the foreground: SIGTTOU held back meanwhile.
void giveTerminalTo(pid_t group) {
    sigset_t ttou;
    sigset_t previous;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    ::pthread_sigmask(SIG_BLOCK, &ttou, &previous);
    ::tcsetpgrp(STDIN_FILENO, group);
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

pid_t g_terminalChild = 0;  // the child whose group holds the terminal (one at a time)

std::vector<ProcessIdentity> membersOf(pid_t group) {
    std::vector<ProcessIdentity> members;
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return members;
    while (const dirent* entry = ::readdir(proc)) {
        const int pid = std::atoi(entry->d_name);
        if (pid <= 0) continue;
        const std::optional<ProcessStat> stat = readProcessStat(pid);
        if (stat && !stat->ended() && stat->group == group)
            members.push_back({pid, stat->startTime});
    }
    ::closedir(proc);
    return members;
}

bool stillRunning(const ProcessIdentity& process) {
    const std::optional<ProcessStat> stat = readProcessStat(process.pid);
    if (!stat || stat->ended()) return false;
    return process.startTime == 0 || stat->startTime == process.startTime;
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
    const bool terminal = holdsTerminal();
    int execFailed[2];  // close-on-exec: the parent reads EOF when exec succeeded, errno if not
    if (::pipe2(execFailed, O_CLOEXEC) != 0) {
        throw inputError(
            fmt::format("cannot start '{}': pipe failed ({})", path, std::strerror(errno)));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int error = errno;
        ::close(execFailed[0]);
        ::close(execFailed[1]);
        throw inputError(
            fmt::format("cannot start '{}': fork failed ({})", path, std::strerror(error)));
    }
    if (pid == 0) {
        ::close(execFailed[0]);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the program ends when glueprof does, however it ends
        if (::getppid() != parent) ::_exit(127);
        ::setpgid(0, 0);  // the program's group: what glueprof signals, and ends with it
        if (terminal) giveTerminalTo(::getpid());
        ::execve(file.c_str(), argv.data(), envp.data());
        const int error = errno;
        (void)!::write(execFailed[1], &error, sizeof error);
        ::_exit(127);
    }
    ::close(execFailed[1]);
    ::setpgid(pid, pid);  // as the child does (whichever runs first); EACCES once it has exec'd
    if (terminal) {
        giveTerminalTo(pid);
        g_terminalChild = pid;
    }
    int error = 0;
    ssize_t got = 0;
    do {
        got = ::read(execFailed[0], &error, sizeof error);
    } while (got < 0 && errno == EINTR);
    ::close(execFailed[0]);
    if (got == static_cast<ssize_t>(sizeof error)) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (g_terminalChild == pid) {
            giveTerminalTo(::getpgrp());
            g_terminalChild = 0;
        }
        throw inputError(fmt::format("cannot run '{}': {}", path, std::strerror(error)));
    }
    return pid;
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
    bool passedOn[2] = {false, false};  // SIGINT, SIGTERM
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG | WUNTRACED);
        if (done == pid && WIFSTOPPED(status)) {
            // Ctrl-Z stopped the program: glueprof takes the terminal back and stops too, as the
            // job the shell sees; `fg` continues glueprof, which gives the program the terminal
            // again and continues it.
            const bool terminal = g_terminalChild == pid;
            if (terminal) giveTerminalTo(::getpgrp());
            ::raise(SIGSTOP);
            if (terminal) giveTerminalTo(pid);
            ::kill(-pid, SIGCONT);
            continue;
        }
        if (done == pid) break;
        if (done < 0 && errno != EINTR) {
            throw GlueprofError(ExitCode::kInput, fmt::format("lost the program (waitpid: {})",
                                                              std::strerror(errno)));
        }
        const int signal = pendingInterruption();
        if (signal == SIGINT || signal == SIGTERM) {
            bool& forwarded = passedOn[signal == SIGINT ? 0 : 1];
            // The program's group; the program itself where it left that group (a new session).
            if (!forwarded && ::kill(-pid, signal) != 0) ::kill(pid, signal);
            forwarded = true;
        }
        ::usleep(20'000);
    }
    const bool heldTerminal = g_terminalChild == pid;
    if (heldTerminal) {
        giveTerminalTo(::getpgrp());
        g_terminalChild = 0;
    }
    // A Ctrl-C in the terminal reached the program's group, not glueprof: a program it ended (by
    // the signal, or as Python does, exit 130) is noted as glueprof's own interruption, so that
    // `ab --exec` stops as it does for a SIGINT sent to glueprof.
    if (heldTerminal && pendingInterruption() == 0 &&
        ((WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) ||
         (WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGINT)))
        ::raise(SIGINT);
    ChildEnd end;
    end.signaled = WIFSIGNALED(status);
    end.exitCode =
        WIFEXITED(status) ? WEXITSTATUS(status) : (end.signaled ? 128 + WTERMSIG(status) : 2);
    end.text = describeProcessEnd(status);
    return end;
}

std::vector<int> endLeftoverProcesses(pid_t group, const std::vector<ProcessIdentity>& others,
                                      int graceMs) {
    std::vector<ProcessIdentity> left = membersOf(group);
    for (const ProcessIdentity& process : others) {
        const bool known = std::any_of(left.begin(), left.end(), [&](const ProcessIdentity& p) {
            return p.pid == process.pid;
        });
        if (!known && process.pid != ::getpid() && stillRunning(process)) left.push_back(process);
    }
    std::vector<int> pids;
    for (const ProcessIdentity& process : left) pids.push_back(process.pid);
    if (left.empty()) return pids;
    // The group by its id (a process it forks meanwhile is in it too); the others each checked to
    // be the same process right before the signal.
    const auto signalAll = [&](int signal) {
        ::kill(-group, signal);
        for (const ProcessIdentity& process : others) {
            if (process.pid != ::getpid() && stillRunning(process)) ::kill(process.pid, signal);
        }
    };
    const auto anyRunning = [&] {
        return !membersOf(group).empty() || std::any_of(others.begin(), others.end(), stillRunning);
    };
    signalAll(SIGTERM);
    for (int waited = 0; waited < graceMs && anyRunning(); waited += 20) ::usleep(20'000);
    for (int round = 0; round < 100 && anyRunning(); ++round) {
        signalAll(SIGKILL);
        ::usleep(20'000);
    }
    return pids;
}

}  // namespace glueprof
