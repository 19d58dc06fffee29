#include "app/gui/Log.h"

namespace glueprof::gui {

void Log::info(std::string text) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_entries.push_back(
        LogEntry{LogEntry::Level::kInfo, std::move(text), std::chrono::steady_clock::now()});
}

void Log::error(std::string text) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_entries.push_back(
        LogEntry{LogEntry::Level::kError, std::move(text), std::chrono::steady_clock::now()});
}

std::vector<LogEntry> Log::entries() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_entries;
}

std::vector<LogEntry> Log::recentErrors(double seconds) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<LogEntry> recent;
    const auto now = std::chrono::steady_clock::now();
    for (const LogEntry& e : m_entries) {
        if (e.level == LogEntry::Level::kError &&
            std::chrono::duration<double>(now - e.at).count() < seconds) {
            recent.push_back(e);
        }
    }
    return recent;
}

}  // namespace glueprof::gui
