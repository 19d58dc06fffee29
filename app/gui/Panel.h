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
    // Where the window goes the first time (no saved layout): fractions of the work area.
    struct Placement {
        float x, y, width, height;
    };
    virtual Placement defaultPlacement() const = 0;
    virtual void draw(PanelContext& context) = 0;  // inside ImGui::Begin/End of its window
};

std::vector<std::unique_ptr<Panel>> makePanels();

}  // namespace glueprof::gui
