#include "app/gui/SettingsStore.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include "app/report/AtomicFile.h"

namespace glueprof::gui {

namespace fs = std::filesystem;

namespace {

// XDG's base directory: $XDG_CONFIG_HOME (an empty one counts as unset), else ~/.config.
fs::path configBase() {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    if (xdg != nullptr && *xdg != '\0') return xdg;
    const char* home = std::getenv("HOME");
    if (home != nullptr && *home != '\0') return fs::path(home) / ".config";
    return ".";
}

// Why the settings in `dir` cannot be saved, "" when they can. access() asks the kernel as a write
// would (permissions, a read-only mount); a settings file that exists must be writable too.
std::string whyNotWritable(const fs::path& dir) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) {
        return fmt::format("cannot create the settings directory {} ({})", dir.string(),
                           error.message());
    }
    if (!fs::is_directory(dir, error)) {
        return fmt::format("the settings directory {} is not a directory", dir.string());
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        return fmt::format("the settings directory {} is not writable ({})", dir.string(),
                           std::strerror(errno));
    }
    for (const char* name : {"imgui.ini", "view.json"}) {
        const fs::path file = dir / name;
        if (fs::exists(file, error) && ::access(file.c_str(), W_OK) != 0) {
            return fmt::format("the settings file {} is not writable ({})", file.string(),
                               std::strerror(errno));
        }
    }
    return "";
}

}  // namespace

SettingsStore SettingsStore::fromEnvironment() { return SettingsStore(configBase() / "glueprof"); }

SettingsStore::SettingsStore(fs::path dir) : m_dir(std::move(dir)) {
    const std::string why = whyNotWritable(m_dir);
    if (!why.empty()) {
        m_problem = "settings (window layout, view) will not be saved this session: " + why +
                    "; set XDG_CONFIG_HOME to a writable directory to keep them";
    }
}

std::string SettingsStore::iniPath() const { return (m_dir / "imgui.ini").string(); }

std::string SettingsStore::loadView() const {
    std::ifstream in(m_dir / "view.json");
    if (!in) return "";
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool SettingsStore::saveView(const std::string& json) const {
    if (!writable()) return false;
    try {
        writeFileAtomically((m_dir / "view.json").string(), json + "\n");
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace glueprof::gui
