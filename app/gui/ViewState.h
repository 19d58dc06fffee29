#pragma once
// What the user is looking at, kept apart from the data (Workspace): which panels are open, the path
// field, recent databases. Saved between sessions as JSON beside ImGui's window layout (imgui.ini).
#include <map>
#include <string>
#include <vector>

namespace glueprof::gui {

struct ViewState {
    std::map<std::string, bool> panelOpen;  // panel name -> shown
    std::string pathField;                  // the Runs panel's database path
    std::vector<std::string> recentDatabases;  // newest first, at most 8
    int selectedBaselineRow = -1;
    int selectedOptimizedRow = -1;

    void rememberDatabase(const std::string& path);
    std::string toJson() const;
    static ViewState fromJson(const std::string& text);  // tolerant: unknown or bad fields are ignored
};

}  // namespace glueprof::gui
