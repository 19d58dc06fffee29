#pragma once
// What the user is looking at, kept apart from the data (Workspace): which panels are open, the
// path field, recent databases. Saved between sessions as JSON beside ImGui's window layout
// (imgui.ini).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace glueprof::gui {

struct ViewState {
    std::map<std::string, bool> panelOpen;     // panel name -> shown
    std::string pathField;                     // the Runs panel's database path
    std::vector<std::string> recentDatabases;  // newest first, at most 8
    // Timeline: the visible range in ns from the aligned step's start, the step runs are aligned at
    // (-1: the first measured step), the selected event (trace, lane, event index; -1 = none).
    double timelineFromNs = 0.0;
    double timelineToNs = 0.0;  // 0 = not set yet: show the aligned step
    int alignStep = -1;
    int selectedTrace = -1;
    int selectedLane = -1;
    std::int64_t selectedEvent = -1;
    std::string highlightName;  // the step diff's chosen name, outlined in both runs ("" = none)
    // Ranks: whose ranks are drawn (0: the baseline or only run, 1: the optimized run) and the
    // step (-1: the first measured step every rank has).
    int ranksArm = 0;
    int ranksStep = -1;
    // The workspace layout: the left column's width (fraction of the window) and the main area's
    // tab to bring forward on the next frame ("" = leave the current one).
    float sidebarWidth = 0.26F;
    std::string selectTab;

    void rememberDatabase(const std::string& path);
    std::string toJson() const;
    static ViewState fromJson(
        const std::string& text);  // tolerant: unknown or bad fields are ignored
};

}  // namespace glueprof::gui
