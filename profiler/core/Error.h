#pragma once
// Errors that reach the user: a one-line message that names the problem and the fix, and the
// exit code the CLI returns for it (docs/cli.md).
#include <stdexcept>
#include <string>

namespace glueprof {

enum class ExitCode : int {
    kOk = 0,
    kUsage = 1,       // bad flag, unknown preset or toggle
    kInput = 2,       // input, I/O or configuration error (bad --db, schema mismatch, too large)
    kRegression = 3,  // `check` found a regression (used by later commands)
    // 128 + the signal, as a shell reports a process a signal ended: SIGINT 130, SIGTERM 143.
    kSignalBase = 128,
};

class GlueprofError : public std::runtime_error {
  public:
    GlueprofError(ExitCode code, const std::string& message)
        : std::runtime_error(message), m_code(code) {}
    ExitCode code() const { return m_code; }

  private:
    ExitCode m_code;
};

inline GlueprofError inputError(const std::string& message) {
    return GlueprofError(ExitCode::kInput, message);
}
inline GlueprofError usageError(const std::string& message) {
    return GlueprofError(ExitCode::kUsage, message);
}

}  // namespace glueprof
