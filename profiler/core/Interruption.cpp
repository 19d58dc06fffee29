#include "profiler/core/Interruption.h"

#include <fmt/format.h>

#include <atomic>

#include "profiler/core/Error.h"

namespace glueprof {

namespace {

volatile std::sig_atomic_t g_pending = 0;
std::atomic<int> g_scopes{0};

extern "C" void noteInterruption(int signal) {
    if (g_pending == signal) {
        // The second of a kind: the user means it. End as that signal would have.
        std::signal(signal, SIG_DFL);
        std::raise(signal);
        return;
    }
    g_pending = signal;
}

}  // namespace

InterruptionScope::InterruptionScope() {
    if (g_scopes.fetch_add(1) != 0) return;
    struct sigaction action {};
    action.sa_handler = noteInterruption;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // a write or a wait the signal lands in goes on
    sigaction(SIGINT, &action, &m_previousInt);
    sigaction(SIGTERM, &action, &m_previousTerm);
    m_installed = true;
}

InterruptionScope::~InterruptionScope() {
    g_scopes.fetch_sub(1);
    if (!m_installed) return;
    sigaction(SIGINT, &m_previousInt, nullptr);
    sigaction(SIGTERM, &m_previousTerm, nullptr);
}

int pendingInterruption() { return g_pending; }

void throwIfInterrupted() {
    const int signal = g_pending;
    if (signal == 0) return;
    throw GlueprofError(
        static_cast<ExitCode>(static_cast<int>(ExitCode::kSignalBase) + signal),
        fmt::format("interrupted by {}: the runs in progress are marked aborted and keep their "
                    "finished steps",
                    signal == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM"));
}

void clearInterruption() { g_pending = 0; }

}  // namespace glueprof
