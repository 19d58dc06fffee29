#include "profiler/inject/LauncherWatch.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <optional>

#include "profiler/core/ProcessStat.h"

namespace glueprof {

namespace {

[[noreturn]] void endWithLauncher(int launcherGroup) {
    const pid_t group = ::getpgid(0);
    if (group > 1 && group != launcherGroup) ::kill(-group, SIGKILL);
    ::kill(::getpid(), SIGKILL);
    ::_exit(137);
}

}  // namespace

namespace {

// Whether `ancestor` is this process's parent, or its parent's, ... (read from /proc): a process
// that got glueprof's variables some other way (ssh or srun passing the environment on, another
// PID namespace) does not watch a PID that is not glueprof's.
bool isAncestor(int ancestor) {
    int pid = ::getppid();
    for (int depth = 0; depth < 64 && pid > 1; ++depth) {
        if (pid == ancestor) return true;
        const std::optional<ProcessStat> stat = readProcessStat(pid);
        if (!stat) return false;
        pid = stat->parent;
    }
    return false;
}

}  // namespace

LauncherWatch::LauncherWatch(int launcherPid, int launcherGroup) {
    if (launcherPid <= 0 || !isAncestor(launcherPid)) return;
#ifdef SYS_pidfd_open
    m_launcher = static_cast<int>(::syscall(SYS_pidfd_open, launcherPid, 0));
#endif
    if (m_launcher < 0 && ::kill(launcherPid, 0) != 0 && errno == ESRCH)
        endWithLauncher(launcherGroup);
    m_stop = ::eventfd(0, EFD_CLOEXEC);
    if (m_stop < 0) return;
    m_thread =
        std::thread([this, launcherPid, launcherGroup] { watch(launcherPid, launcherGroup); });
}

void LauncherWatch::watch(int launcherPid, int launcherGroup) {
    for (;;) {
        // A pidfd turns readable when its process ends; without one (a kernel before 5.3) the
        // launcher is asked every 200 ms.
        pollfd fds[2] = {{m_stop, POLLIN, 0}, {m_launcher, POLLIN, 0}};
        const int ready = ::poll(fds, m_launcher >= 0 ? 2 : 1, m_launcher >= 0 ? -1 : 200);
        if (ready < 0 && errno != EINTR) return;
        if (fds[0].revents != 0) return;
        const bool gone =
            m_launcher >= 0 ? fds[1].revents != 0 : ::kill(launcherPid, 0) != 0 && errno == ESRCH;
        if (gone) endWithLauncher(launcherGroup);
    }
}

LauncherWatch::~LauncherWatch() {
    if (m_thread.joinable()) {
        const std::uint64_t one = 1;
        (void)!::write(m_stop, &one, sizeof one);
        m_thread.join();
    }
    if (m_stop >= 0) ::close(m_stop);
    if (m_launcher >= 0) ::close(m_launcher);
}

}  // namespace glueprof
