#pragma once
// The GUI's log: every error and notable event, shown in the log panel; errors also raise a toast.
// Never only stderr.
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace glueprof::gui {

struct LogEntry {
    enum class Level { kInfo, kError } level = Level::kInfo;
    std::string text;
    std::chrono::steady_clock::time_point at;
};

class Log {
  public:
    void info(std::string text);
    void error(std::string text);  // also a toast
    std::vector<LogEntry> entries() const;
    // Errors younger than `seconds`, newest last (the toasts to show).
    std::vector<LogEntry> recentErrors(double seconds) const;

  private:
    mutable std::mutex m_mutex;
    std::vector<LogEntry> m_entries;
};

}  // namespace glueprof::gui
