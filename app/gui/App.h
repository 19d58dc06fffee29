#pragma once
// The application: owns the log, the workspace, the view state and the panels, and draws one frame.
// main.cpp is the GLFW + OpenGL 3 shell around it; tests drive it in a headless ImGui context.
#include <memory>
#include <string>
#include <vector>

#include "app/gui/FrameStats.h"
#include "app/gui/Panel.h"

namespace glueprof::gui {

class App {
  public:
    explicit App(ViewState view = {});
    bool hasPanel(const std::string& name) const;  // a panel's window title
    void frame();                                  // between ImGui::NewFrame() and ImGui::Render()
    Workspace& workspace() { return m_workspace; }
    const ViewState& view() const { return m_view; }
    ViewState& view() { return m_view; }
    Log& log() { return m_log; }
    RunController& runner() { return m_runner; }
    // JSON of what is shown: open panels, selected runs, the dashboard's numbers.
    std::string dumpState() const;
    const std::vector<std::unique_ptr<Panel>>& panels() const { return m_panels; }
    FrameStats& frameStats() { return m_frameStats; }
    void setFontPath(std::string path) { m_fontPath = std::move(path); }

  private:
    void drawMenu();
    void drawWorkspace(PanelContext& context);
    void drawToasts();

    Log m_log;
    Workspace m_workspace{m_log};
    RunController m_runner{m_log};
    ViewState m_view;
    std::vector<std::unique_ptr<Panel>> m_panels;
    FrameStats m_frameStats;
    std::string m_fontPath;  // "" = ImGui's built-in font
};

}  // namespace glueprof::gui
