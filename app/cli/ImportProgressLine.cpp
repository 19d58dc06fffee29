#include "app/cli/ImportProgressLine.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "app/cli/ErrorLine.h"

namespace glueprof::cli {

namespace {

std::string nameOf(const std::string& file) {
    const std::string name = std::filesystem::path(file).filename().string();
    return name.size() <= 32 ? name : name.substr(0, 29) + "...";
}

}  // namespace

ImportProgressLine::ImportProgressLine() : m_terminal(isatty(STDERR_FILENO) != 0) {}

void ImportProgressLine::reading(const std::string& file, std::uint64_t readBytes,
                                 std::uint64_t fileBytes) {
    if (fileBytes == 0) return;
    show(fmt::format("reading {}: {}% of {:.1f} MB", nameOf(file), readBytes * 100 / fileBytes,
                     static_cast<double>(fileBytes) / 1e6));
}

void ImportProgressLine::storing(const std::string& file, std::size_t events) {
    show(fmt::format("storing {}: {} events", nameOf(file), events));
}

void ImportProgressLine::clear() {
    if (!m_terminal) return;
    std::lock_guard<std::mutex> lock(m_mutex);
    endProgressLine();
}

// Within endProgressLine's 60 columns, so that it clears the line whole.
void ImportProgressLine::show(const std::string& text) {
    if (!m_terminal) return;
    std::lock_guard<std::mutex> lock(m_mutex);
    std::fprintf(stderr, "\r%-59.59s", text.c_str());
    std::fflush(stderr);
}

}  // namespace glueprof::cli
