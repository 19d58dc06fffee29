#pragma once
// Ctrl-C and `kill` during a recording: the first SIGINT or SIGTERM is noted, the recording loop
// stops at its next step boundary (throwIfInterrupted), and the runs in progress end `aborted` with
// every finished step kept; a second signal of the same kind ends the process at once.
#include <csignal>
#include <string_view>

namespace glueprof {

// While alive, SIGINT and SIGTERM are noted instead of ending the process (the handlers in place
// before are restored when it ends; a signal the process ignores stays ignored). Scopes nest; only
// the outermost installs handlers.
class InterruptionScope {
  public:
    InterruptionScope();
    ~InterruptionScope();
    InterruptionScope(const InterruptionScope&) = delete;
    InterruptionScope& operator=(const InterruptionScope&) = delete;

  private:
    bool m_installedInt = false;
    bool m_installedTerm = false;
    struct sigaction m_previousInt {};
    struct sigaction m_previousTerm {};
};

// The signal noted by a scope (SIGINT or SIGTERM), 0 when none.
int pendingInterruption();

// Throws GlueprofError with exit code 128 + the signal (130 for SIGINT, 143 for SIGTERM) when one
// was noted: "interrupted by SIGINT (Ctrl-C): CONSEQUENCE" (by default, what a recording keeps).
void throwIfInterrupted(
    std::string_view consequence =
        "the runs in progress are marked aborted and keep their finished steps");

}  // namespace glueprof
