#pragma once
// A panel draws one window from the workspace (read only) and the view state, and asks for changes
// through Actions, which the App carries out after the frame. One panel per file in panels/,
// registered in panels/PanelRegistry.cpp.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/RunController.h"
#include "app/gui/ViewState.h"
#include "app/gui/Workspace.h"

namespace glueprof::gui {

struct Actions {
    std::vector<std::function<void(Workspace&)>> pending;
    std::vector<std::function<void(RunController&)>> runs;
    void startRun(const RunRequest& request) {
        runs.push_back([request](RunController& r) { r.start(request); });
    }
    void cancelRun() {
        runs.push_back([](RunController& r) { r.cancel(); });
    }
    void openDatabase(const std::string& path) {
        pending.push_back([path](Workspace& w) { w.open(path); });
    }
    void selectRuns(RunId baseline, RunId optimized) {
        pending.push_back([baseline, optimized](Workspace& w) { w.select(baseline, optimized); });
    }
};

struct PanelContext {
    const Workspace& workspace;
    const RunController& runner;
    ViewState& view;
    Actions& actions;
    Log& log;  // panels may log (exports); the workspace stays read-only
};

class Panel {
  public:
    virtual ~Panel() = default;
    virtual const char* name() const = 0;  // the window title, and the key in ViewState::panelOpen
    virtual bool openByDefault() const { return true; }
    // Where it lives in the window: the left column (runs, diagnostics, log: stacked, each under
    // its header) or the main area (one tab each: Dashboard, Timeline, ...), split by a movable
    // divider. ImGui's docking branch is not in Debian's 1.86: this is the layout without it.
    enum class Area { kSidebar, kMain };
    virtual Area area() const = 0;
    virtual void draw(PanelContext& context) = 0;  // inside its region of the workspace window
};

std::vector<std::unique_ptr<Panel>> makePanels();

}  // namespace glueprof::gui
