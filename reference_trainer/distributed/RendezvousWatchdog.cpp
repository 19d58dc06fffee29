#include "reference_trainer/distributed/RendezvousWatchdog.h"

#include <c10/util/Logging.h>
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"

namespace glueprof {

namespace {
// c10's levels: 0 INFO, 1 WARNING, 2 ERROR, 3 FATAL. Its errors are held back too: the exception
// that follows them is what the rank reports, in one line.
constexpr int kC10FatalOnly = 3;

[[noreturn]] void endProcess(const std::string& line, int code) {
    // write(2), not stdio: the waiting thread may hold stderr's lock.
    const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
    (void)written;
    std::_Exit(code);  // the join cannot be unwound: nothing else may run on this process
}
}  // namespace

RendezvousWatchdog::RendezvousWatchdog(std::string prefix, std::string waiting, std::string what,
                                       std::string fix, std::chrono::milliseconds deadline)
    : m_prefix(std::move(prefix)),
      m_waiting(std::move(waiting)),
      m_what(std::move(what)),
      m_fix(std::move(fix)),
      m_deadline(std::chrono::steady_clock::now() + deadline),
      m_previousLogLevel(FLAGS_caffe2_log_level) {
    if (FLAGS_caffe2_log_level < kC10FatalOnly) FLAGS_caffe2_log_level = kC10FatalOnly;
    m_thread = std::thread([this] { watch(); });
}

RendezvousWatchdog::~RendezvousWatchdog() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_finished = true;
    }
    m_done.notify_all();
    m_thread.join();
    FLAGS_caffe2_log_level = m_previousLogLevel;
}

void RendezvousWatchdog::watch() {
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        // A tenth of a second between looks at a noted signal.
        const auto next =
            std::min(m_deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(100));
        if (m_done.wait_until(lock, next, [this] { return m_finished; })) return;
        if (const int signal = pendingInterruption(); signal != 0) {
            endProcess(fmt::format("{}interrupted by {} while {}\n", m_prefix,
                                   signal == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM", m_waiting),
                       static_cast<int>(ExitCode::kSignalBase) + signal);
        }
        if (std::chrono::steady_clock::now() >= m_deadline) {
            endProcess(fmt::format("{}{}; {}\n", m_prefix, m_what, m_fix),
                       static_cast<int>(ExitCode::kInput));
        }
    }
}

}  // namespace glueprof
