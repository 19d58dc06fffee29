#pragma once
// Where the app keeps its settings between sessions: $XDG_CONFIG_HOME/glueprof, else
// ~/.config/glueprof, holding ImGui's window layout (imgui.ini) and the view state (view.json).
// A directory that cannot be created or written (a read-only one, a plain file in its place) is no
// reason not to start: the app then runs without saving settings and says so once in its log.
// Needs no display (tests use it directly).
#include <filesystem>
#include <string>

namespace glueprof::gui {

class SettingsStore {
  public:
    // The directory the environment names, created when absent; never throws.
    static SettingsStore fromEnvironment();
    // `dir`, created when absent; never throws.
    explicit SettingsStore(std::filesystem::path dir);

    bool writable() const { return m_problem.empty(); }
    // Why nothing is saved this session ("" when settings are saved): one line for the log.
    const std::string& problem() const { return m_problem; }
    const std::filesystem::path& dir() const { return m_dir; }

    // ImGui's ini file: ImGui's own when writable(), else only read once at start (the layout
    // then lives in memory).
    std::string iniPath() const;
    // view.json's text; "" when there is none or it cannot be read.
    std::string loadView() const;
    // Writes view.json; false when settings are not saved or the write failed.
    bool saveView(const std::string& json) const;

  private:
    std::filesystem::path m_dir;
    std::string m_problem;
};

}  // namespace glueprof::gui
