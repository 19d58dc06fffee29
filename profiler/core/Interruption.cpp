#include "profiler/core/Interruption.h"

#include <fmt/format.h>

#include <atomic>

#include "profiler/core/Error.h"

namespace glueprof {

namespace {

// Written by the handler on whichever thread the signal lands on, read by the recording thread:
// a lock-free atomic, safe in a signal handler.
std::atomic<int> g_pending{0};
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> g_scopes{0};

extern "C" void noteInterruption(int signal) {
    if (g_pending.load() == signal) {
        // The second of a kind: the user means it. End as that signal would have.
        std::signal(signal, SIG_DFL);
        std::raise(signal);
        return;
    }
    g_pending.store(signal);
}

// Installs the handler for SIGNAL unless the process ignores it (a background job started by a
// shell ignores SIGINT: a Ctrl-C meant for the foreground must not stop it). Keeps what was there.
bool install(int signal, struct sigaction* previous) {
    sigaction(signal, nullptr, previous);
    if (previous->sa_handler == SIG_IGN) return false;
    struct sigaction action {};
    action.sa_handler = noteInterruption;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // a write or a wait the signal lands in goes on
    sigaction(signal, &action, nullptr);
    return true;
}

}  // namespace

InterruptionScope::InterruptionScope() {
    if (g_scopes.fetch_add(1) != 0) return;
    m_installedInt = install(SIGINT, &m_previousInt);
    m_installedTerm = install(SIGTERM, &m_previousTerm);
}

InterruptionScope::~InterruptionScope() {
    g_scopes.fetch_sub(1);
    if (m_installedInt) sigaction(SIGINT, &m_previousInt, nullptr);
    if (m_installedTerm) sigaction(SIGTERM, &m_previousTerm, nullptr);
}

int pendingInterruption() { return g_pending.load(); }

void throwIfInterrupted(std::string_view consequence) {
    const int signal = g_pending.load();
    if (signal == 0) return;
    throw GlueprofError(static_cast<ExitCode>(static_cast<int>(ExitCode::kSignalBase) + signal),
                        fmt::format("interrupted by {}: {}",
                                    signal == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM", consequence));
}

}  // namespace glueprof
