#pragma once
// What `glueprof import` shows while it works, on a terminal only: one updating line on stderr
// ("reading trace.json.gz: 45% of 78.3 MB", "storing trace.json.gz: 877115 events"), cleared before
// each line the import prints; nothing when stderr is piped or redirected. The next file is read on
// a thread of its own while one is stored: one lock for the line.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

namespace glueprof::cli {

class ImportProgressLine {
  public:
    ImportProgressLine();

    void reading(const std::string& file, std::uint64_t readBytes, std::uint64_t fileBytes);
    void storing(const std::string& file, std::size_t events);
    void clear();  // before a line of the import's own

  private:
    void show(const std::string& text);

    bool m_terminal;
    std::mutex m_mutex;
};

}  // namespace glueprof::cli
