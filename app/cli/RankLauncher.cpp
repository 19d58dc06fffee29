#include "app/cli/RankLauncher.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>
#include <vector>

#include "profiler/core/Error.h"
#include "reference_trainer/distributed/RankEnvironment.h"
#include "reference_trainer/distributed/RankMerge.h"

namespace glueprof::cli {
namespace {

std::vector<std::string> g_commandLine;
std::atomic<int> g_launcherSignal{0};

void onLauncherSignal(int signal) { g_launcherSignal.store(signal); }

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

pid_t startRank(const RankEnvironment& environment) {
    const pid_t launcher = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0)
        throw inputError(fmt::format("cannot start rank {}: fork failed", environment.rank));
    if (pid > 0) return pid;
    // The rank: it ends when the launcher does, however the launcher ends.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != launcher) ::_exit(127);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    exportRankEnvironment(environment);
    std::vector<char*> argv;
    for (std::string& argument : g_commandLine) argv.push_back(argument.data());
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "glueprof: cannot start rank %d: exec failed (%s)\n", environment.rank,
                 std::strerror(errno));
    ::_exit(2);
}

std::string describeEnd(int status) {
    if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                           ::strsignal(WTERMSIG(status)));
    }
    return "ended";
}

}  // namespace

std::string messagePrefix() {
    const char* rank = std::getenv("RANK");
    const char* world = std::getenv("WORLD_SIZE");
    if (rank == nullptr || world == nullptr || std::string(world) == "1") return "glueprof: ";
    return fmt::format("glueprof (rank {} of {}): ", rank, world);
}

void rememberCommandLine(int argc, char** argv) { g_commandLine.assign(argv, argv + argc); }

int launchRanks(int nproc, const std::string& db) {
    if (g_commandLine.empty()) throw inputError("the command line to start the ranks is unknown");
    const int port = freeLoopbackPort();
    struct sigaction action {};
    action.sa_handler = onLauncherSignal;
    struct sigaction oldInt {
    }, oldTerm{};
    ::sigaction(SIGINT, &action, &oldInt);
    ::sigaction(SIGTERM, &action, &oldTerm);

    std::vector<pid_t> ranks(static_cast<std::size_t>(nproc), 0);
    std::vector<int> statuses(static_cast<std::size_t>(nproc), 0);
    int running = 0;
    for (int r = 0; r < nproc; ++r) {
        ranks[r] = startRank(RankEnvironment{r, nproc, r, "127.0.0.1", port});
        ++running;
    }
    int failedRank = -1;
    bool stopping = false;
    auto stopOthers = [&](int signal) {
        for (pid_t pid : ranks)
            if (pid > 0) ::kill(pid, signal);
    };
    auto stopAt = std::chrono::steady_clock::time_point::max();
    constexpr auto kGrace = std::chrono::seconds(10);  // then SIGKILL
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
                if (failed && failedRank < 0 && !stopping) {
                    failedRank = r;
                    stopping = true;
                    stopOthers(SIGTERM);
                    stopAt = std::chrono::steady_clock::now() + kGrace;
                }
            }
            continue;
        }
        if (g_launcherSignal.load() != 0 && !stopping) {
            stopping = true;
            stopOthers(SIGTERM);
            stopAt = std::chrono::steady_clock::now() + kGrace;
        }
        if (std::chrono::steady_clock::now() > stopAt) {
            stopOthers(SIGKILL);
            stopAt = std::chrono::steady_clock::time_point::max();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::sigaction(SIGINT, &oldInt, nullptr);
    ::sigaction(SIGTERM, &oldTerm, nullptr);
    if (!stopping) return 0;  // rank 0 merged the files and printed the results

    // A rank failed, or the launcher was told to stop: keep what the ranks recorded.
    std::string kept;
    try {
        const MergedRanks merged = mergeRankTraces(db, nproc, {});
        if (!merged.runs.empty()) {
            kept = fmt::format(
                "; the {} run(s) the ranks recorded are kept in '{}' (aborted, "
                "with every finished step)",
                merged.runs.size(), db);
        }
    } catch (const GlueprofError& e) {
        kept = fmt::format("; the ranks' traces could not be merged: {}", e.what());
    }
    if (failedRank >= 0) {
        const int status = statuses[failedRank];
        std::cerr << fmt::format("glueprof: rank {} of {} {}; the other ranks were stopped{}\n",
                                 failedRank, nproc, describeEnd(status), kept);
        if (WIFEXITED(status) && WEXITSTATUS(status) >= 1 && WEXITSTATUS(status) <= 3)
            return WEXITSTATUS(status);
        return static_cast<int>(ExitCode::kInput);
    }
    const int signal = g_launcherSignal.load();
    std::cerr << fmt::format("glueprof: stopped by signal {}; every rank was stopped{}\n", signal,
                             kept);
    return static_cast<int>(ExitCode::kSignalBase) + signal;
}

}  // namespace glueprof::cli
