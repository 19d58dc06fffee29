#include "app/gui/App.h"

#include "app/report/ResultsJson.h"

#include <imgui.h>

#include <algorithm>

#include <nlohmann/json.hpp>

namespace glueprof::gui {

App::App(ViewState view) : m_view(std::move(view)), m_panels(makePanels()) {
    for (const auto& panel : m_panels) {
        if (m_view.panelOpen.count(panel->name()) == 0)
            m_view.panelOpen[panel->name()] = panel->openByDefault();
    }
}

bool App::hasPanel(const std::string& name) const {
    for (const auto& panel : m_panels) {
        if (name == panel->name()) return true;
    }
    return false;
}

void App::frame() {
    if (m_workspace.poll()) m_frameStats.reset();
    if (m_runner.takeFinished() && m_workspace.isOpen())
        m_workspace.open(m_workspace.path());  // show the new runs
    drawMenu();
    Actions actions;
    PanelContext context{m_workspace, m_runner, m_view, actions, m_log};
    drawWorkspace(context);
    drawToasts();
    for (auto& action : actions.pending) action(m_workspace);
    for (auto& action : actions.runs) action(m_runner);
}

// One window over the whole work area: the left column (sidebar panels stacked under headers),
// a divider the mouse moves, and the main area's tabs. Every panel's region has its size from
// the window, so the timeline gets the main area's full height.
void App::drawWorkspace(PanelContext& context) {
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(viewport->WorkPos);
    ImGui::SetNextWindowSize(viewport->WorkSize);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoBringToFrontOnFocus |
                                   ImGuiWindowFlags_NoSavedSettings;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(4.0F, 4.0F));
    const bool visible = ImGui::Begin("##workspace", nullptr, flags);
    ImGui::PopStyleVar();
    if (!visible) {
        ImGui::End();
        return;
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float splitter = 6.0F;
    const float left = std::clamp(m_view.sidebarWidth, 0.1F, 0.6F) * avail.x;

    ImGui::BeginChild("##sidebar", ImVec2(left, avail.y), true);
    for (const auto& panel : m_panels) {
        if (panel->area() != Panel::Area::kSidebar || !m_view.panelOpen[panel->name()]) continue;
        ImGui::PushID(panel->name());
        if (ImGui::CollapsingHeader(panel->name(), ImGuiTreeNodeFlags_DefaultOpen)) {
            panel->draw(context);
            ImGui::Spacing();
        }
        ImGui::PopID();
    }
    ImGui::EndChild();

    ImGui::SameLine(0.0F, 0.0F);
    ImGui::InvisibleButton("##divider", ImVec2(splitter, avail.y));
    if (ImGui::IsItemHovered() || ImGui::IsItemActive())
        ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
    if (ImGui::IsItemActive() && avail.x > 0.0F)
        m_view.sidebarWidth =
            std::clamp(m_view.sidebarWidth + ImGui::GetIO().MouseDelta.x / avail.x, 0.1F, 0.6F);
    ImGui::SameLine(0.0F, 0.0F);

    ImGui::BeginChild("##main", ImVec2(0.0F, avail.y), false);
    if (ImGui::BeginTabBar("##tabs")) {
        for (const auto& panel : m_panels) {
            if (panel->area() != Panel::Area::kMain || !m_view.panelOpen[panel->name()]) continue;
            const bool select = m_view.selectTab == panel->name();
            if (ImGui::BeginTabItem(panel->name(), &m_view.panelOpen[panel->name()],
                                    select ? ImGuiTabItemFlags_SetSelected : 0)) {
                ImGui::BeginChild("##tab", ImVec2(0.0F, 0.0F), false);
                panel->draw(context);
                ImGui::EndChild();
                ImGui::EndTabItem();
            }
            if (select) m_view.selectTab.clear();
        }
        ImGui::EndTabBar();
    }
    ImGui::EndChild();
    ImGui::End();
}

void App::drawMenu() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("View")) {
        for (const auto& panel : m_panels)
            ImGui::MenuItem(panel->name(), nullptr, &m_view.panelOpen[panel->name()]);
        ImGui::Separator();
        const FrameSummary frames = m_frameStats.summary();
        ImGui::TextDisabled("frame: median %.2f ms, p95 %.2f ms (CPU, %zu frames)", frames.medianMs,
                            frames.p95Ms, frames.frames);
        ImGui::EndMenu();
    }
    if (m_workspace.loading()) {
        const Workspace::Progress p = m_workspace.progress();
        ImGui::ProgressBar(p.fraction, ImVec2(220.0F, 0.0F), p.stage);
        if (ImGui::SmallButton("Cancel loading")) m_workspace.cancel();
    }
    if (m_runner.running())
        ImGui::Text("  running %s: step %d/%d", m_runner.current().c_str(), m_runner.done(),
                    m_runner.total());
    ImGui::EndMainMenuBar();
}

void App::drawToasts() {
    const std::vector<LogEntry> errors = m_log.recentErrors(6.0);
    if (errors.empty()) return;
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(
        ImVec2(viewport->WorkPos.x + viewport->WorkSize.x - 10, viewport->WorkPos.y + 10),
        ImGuiCond_Always, ImVec2(1.0F, 0.0F));
    ImGui::SetNextWindowBgAlpha(0.9F);
    if (ImGui::Begin("##toasts", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                         ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                         ImGuiWindowFlags_NoNav)) {
        // An auto-resizing window has no width to wrap at: wrap at a third of the screen (else
        // TextWrapped makes a column one character wide).
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + viewport->WorkSize.x / 3.0F);
        for (const LogEntry& e : errors) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0F, 0.45F, 0.4F, 1.0F));
            ImGui::TextUnformatted(e.text.c_str());
            ImGui::PopStyleColor();
        }
        ImGui::PopTextWrapPos();
    }
    ImGui::End();
}

std::string App::dumpState() const {
    nlohmann::json panels = nlohmann::json::array();
    for (const auto& [name, open] : m_view.panelOpen) {
        if (open) panels.push_back(name);
    }
    nlohmann::json j = {{"db", m_workspace.path()},
                        {"open_panels", panels},
                        {"selected",
                         {{"baseline", m_workspace.selectedBaseline()},
                          {"optimized", m_workspace.selectedOptimized()}}},
                        {"loading", m_workspace.loading()},
                        {"running", m_runner.running()},
                        {"font", m_fontPath}};
    std::size_t events = 0;
    for (const TraceModel& t : m_workspace.traces()) events += t.eventCount();
    j["events_loaded"] = events;
    const FrameSummary frames = m_frameStats.summary();
    j["frame_ms"] = {{"frames", frames.frames},
                     {"median", frames.medianMs},
                     {"p95", frames.p95Ms},
                     {"max", frames.maxMs}};
    if (const Results* results = m_workspace.results()) {
        j["dashboard"] =
            toJson(*results);  // the results model, as `report --format json` writes it
    }
    nlohmann::json errors = nlohmann::json::array();
    nlohmann::json log = nlohmann::json::array();  // every entry, notices too, oldest first
    for (const LogEntry& e : m_log.entries()) {
        if (e.level == LogEntry::Level::kError) errors.push_back(e.text);
        log.push_back(e.text);
    }
    j["errors"] = errors;
    j["log"] = log;
    return jsonText(j);
}

}  // namespace glueprof::gui
