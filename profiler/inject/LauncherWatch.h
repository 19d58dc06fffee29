#pragma once
// A recording process ends when glueprof does. The program glueprof runs ends with it through
// PR_SET_PDEATHSIG, but that reaches only glueprof's own child: a Python started by a shell script,
// a torchrun rank in a session of its own, would train on with parent 1, writing into a trace
// glueprof will never read. So every recording process watches glueprof's PID (a pidfd, polled on
// a thread of its own that sleeps until glueprof ends or the capture stops) and, when glueprof has
// ended, kills its own process group (never glueprof's) and itself with SIGKILL. Only a process
// that descends from that PID watches it: one that got glueprof's variables another way (ssh, srun,
// another PID namespace) does not.
#include <thread>

namespace glueprof {

class LauncherWatch {
  public:
    // Watches `launcherPid` (0: nothing to watch); `launcherGroup` is the process group never
    // signalled. Ends the process at once when the launcher is already gone.
    LauncherWatch(int launcherPid, int launcherGroup);
    ~LauncherWatch();  // stops watching
    LauncherWatch(const LauncherWatch&) = delete;
    LauncherWatch& operator=(const LauncherWatch&) = delete;

  private:
    void watch(int launcherPid, int launcherGroup);

    int m_launcher = -1;  // pidfd of the launcher
    int m_stop = -1;      // eventfd: the capture stops
    std::thread m_thread;
};

}  // namespace glueprof
