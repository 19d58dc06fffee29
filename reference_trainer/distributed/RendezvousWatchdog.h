#pragma once
// A guard for the calls that join a rank group. libtorch cannot cancel them: a MASTER_PORT served
// by something that is not a c10d store (a web server) leaves TCPStore waiting for an answer that
// never comes, past its own timeout, and a noted SIGINT/SIGTERM is only looked at between steps.
// While the guard lives, a thread watches: past the deadline it prints one line and ends the
// process with exit code 2; at a noted SIGINT/SIGTERM it prints one line and ends with 130/143.
// libtorch's own log lines (c10d's socket retries and errors) are held back meanwhile: its
// exception, when it comes, is what the rank reports, in one line.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace glueprof {

class RendezvousWatchdog {
  public:
    // PREFIX starts each line ("glueprof (rank 1 of 2): "); WHAT says what waited too long
    // ("could not join the rendezvous at HOST:PORT within 10 s"), FIX what to check. With
    // kNoDeadline only a signal ends the wait early.
    static constexpr std::chrono::milliseconds kNoDeadline = std::chrono::hours(24 * 365);
    // WAITING says what the rank waits for, for the line a signal ends it with ("joining the
    // ranks").
    RendezvousWatchdog(std::string prefix, std::string waiting, std::string what, std::string fix,
                       std::chrono::milliseconds deadline);
    ~RendezvousWatchdog();
    RendezvousWatchdog(const RendezvousWatchdog&) = delete;
    RendezvousWatchdog& operator=(const RendezvousWatchdog&) = delete;

  private:
    void watch();

    std::string m_prefix, m_waiting, m_what, m_fix;
    std::chrono::steady_clock::time_point m_deadline;
    int m_previousLogLevel = 0;
    std::mutex m_mutex;
    std::condition_variable m_done;
    bool m_finished = false;
    std::thread m_thread;
};

}  // namespace glueprof
