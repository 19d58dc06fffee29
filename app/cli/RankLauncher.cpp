#include "app/cli/RankLauncher.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "app/cli/Progress.h"
#include "app/usecases/ChildProcess.h"
#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/ranks/RankEnvironment.h"
#include "profiler/ranks/RankMerge.h"

namespace glueprof::cli {
namespace {

std::vector<std::string> g_commandLine;

// A loopback port nothing listens on now (the kernel's choice for port 0); rank 0's TCPStore
// binds it a moment later.
int freeLoopbackPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw inputError("cannot create a socket to find a free port for the ranks");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
    ::close(fd);
    if (!ok) throw inputError("cannot find a free loopback port for the ranks' rendezvous");
    return ntohs(address.sin_port);
}

// A rank's environment: this process's, with the rank variables replaced.
std::vector<std::string> rankEnvironment(const RankEnvironment& rank) {
    std::vector<std::string> variables;
    for (char** e = environ; *e != nullptr; ++e) {
        if (!isRankEnvironmentVariable(*e)) variables.emplace_back(*e);
    }
    for (std::string& v : rankEnvironmentVariables(rank)) variables.push_back(std::move(v));
    return variables;
}

std::vector<char*> pointersOf(std::vector<std::string>& texts) {
    std::vector<char*> pointers;
    for (std::string& text : texts) pointers.push_back(text.data());
    pointers.push_back(nullptr);
    return pointers;
}

// Starts one rank; 0 when fork failed. Everything exec needs is built before the fork: the child
// only calls async-signal-safe functions (this process may already run other threads).
pid_t startRank(const RankEnvironment& rank) {
    std::vector<std::string> arguments = g_commandLine;
    std::vector<std::string> variables = rankEnvironment(rank);
    std::vector<char*> argv = pointersOf(arguments);
    std::vector<char*> envp = pointersOf(variables);
    const pid_t launcher = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return 0;
    if (pid > 0) return pid;
    // The rank ends when the launcher does, however the launcher ends.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != launcher) ::_exit(127);
    ::execve("/proc/self/exe", argv.data(), envp.data());
    static const char kFailed[] = "glueprof: cannot start a rank: exec of /proc/self/exe failed\n";
    (void)!::write(STDERR_FILENO, kFailed, sizeof(kFailed) - 1);
    ::_exit(2);
}

// What a merge after a failure kept, as the end of the launcher's message.
std::string mergeWhatTheRanksRecorded(const std::string& db, const std::string& launchId,
                                      int nproc) {
    try {
        const MergedRanks merged = mergeRankTraces(db, launchId, nproc, {});
        std::string kept;
        if (!merged.runs.empty()) {
            kept = fmt::format(
                "; the {} run(s) the ranks recorded are kept in '{}' (aborted or "
                "failed, with every finished step)",
                merged.runs.size(), db);
        }
        for (const std::string& file : merged.unreadable)
            kept +=
                fmt::format("; '{}' could not be read and was kept as '{}.unmerged'", file, file);
        return kept;
    } catch (const std::exception& e) {
        return fmt::format("; the ranks' traces could not be merged ({}) and stay beside '{}'",
                           e.what(), db);
    }
}

}  // namespace

void rememberCommandLine(int argc, char** argv) { g_commandLine.assign(argv, argv + argc); }

int launchRanks(int nproc, const std::string& db) {
    if (g_commandLine.empty()) throw inputError("the command line to start the ranks is unknown");
    // What earlier launches left (a launcher killed outright) goes into the database first, on its
    // own, before this launch's ranks record.
    for (const std::string& line : leftoverNotices(mergeLeftoverRankTraces(db), db))
        printNotice(line);

    const std::string launchId = newLaunchId();
    const int port = freeLoopbackPort();
    // Ctrl-C / SIGTERM are noted (a second one ends the launcher, and its ranks with it); a signal
    // this process ignores (a background job's SIGINT) stays ignored, in the ranks too.
    const InterruptionScope interruptible;

    std::vector<pid_t> ranks(static_cast<std::size_t>(nproc), 0);
    std::vector<int> statuses(static_cast<std::size_t>(nproc), 0);
    int running = 0;
    bool stopping = false;
    int failedRank = -1;
    bool othersWereRunning = false;
    bool startFailed = false;
    auto stopAll = [&](int signal) {
        for (pid_t pid : ranks)
            if (pid > 0) ::kill(pid, signal);
    };
    constexpr auto kGrace = std::chrono::seconds(10);  // then SIGKILL
    auto killAt = std::chrono::steady_clock::time_point::max();
    auto beginStopping = [&] {
        stopping = true;
        stopAll(SIGTERM);
        killAt = std::chrono::steady_clock::now() + kGrace;
    };
    for (int r = 0; r < nproc; ++r) {
        ranks[r] = startRank(RankEnvironment{r, nproc, r, "127.0.0.1", port, launchId});
        if (ranks[r] == 0) {
            othersWereRunning = running > 0;
            startFailed = true;
            failedRank = r;
            beginStopping();
            break;
        }
        ++running;
    }
    while (running > 0) {
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            for (int r = 0; r < nproc; ++r) {
                if (ranks[r] != pid) continue;
                ranks[r] = 0;
                statuses[r] = status;
                --running;
                const bool failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                if (failed && !stopping) {
                    failedRank = r;
                    othersWereRunning = running > 0;
                    beginStopping();
                }
            }
            continue;
        }
        if (pendingInterruption() != 0 && !stopping) beginStopping();
        if (std::chrono::steady_clock::now() > killAt) {
            stopAll(SIGKILL);
            killAt = std::chrono::steady_clock::time_point::max();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!stopping) return 0;  // rank 0 merged the files and printed the results

    // A rank failed, or the launcher was told to stop: keep what the ranks recorded.
    const std::string kept = mergeWhatTheRanksRecorded(db, launchId, nproc);
    if (failedRank >= 0) {
        const int status = statuses[failedRank];
        const std::string how =
            startFailed ? "could not be started (fork failed)" : describeProcessEnd(status);
        const bool ownCode = !startFailed && WIFEXITED(status) && WEXITSTATUS(status) >= 1 &&
                             WEXITSTATUS(status) <= 3;
        throw GlueprofError(
            ownCode ? static_cast<ExitCode>(WEXITSTATUS(status)) : ExitCode::kInput,
            fmt::format("rank {} of {} {}{}{}", failedRank, nproc, how,
                        othersWereRunning ? "; the other ranks were stopped" : "", kept));
    }
    const int signal = pendingInterruption();
    throw GlueprofError(
        static_cast<ExitCode>(static_cast<int>(ExitCode::kSignalBase) + signal),
        fmt::format("stopped by signal {}; every rank was stopped{}", signal, kept));
}

}  // namespace glueprof::cli
