// Runs: open a database (path field, recent files), list its runs, pick A (baseline) and B.
#include <imgui.h>

#include <string_view>

#include <imgui_stdlib.h>
#include <algorithm>

#include <fmt/format.h>

#include "app/gui/Panel.h"

namespace glueprof::gui {

namespace {

class RunsPanel : public Panel {
  public:
    const char* name() const override { return "Runs"; }

    Area area() const override { return Area::kSidebar; }

    void draw(PanelContext& c) override {
        ImGui::SetNextItemWidth(-80.0F);
        ImGui::InputText("##db", &c.view.pathField);
        ImGui::SameLine();
        if (ImGui::Button("Open") && !c.view.pathField.empty()) {
            c.view.rememberDatabase(c.view.pathField);
            c.actions.openDatabase(c.view.pathField);
        }
        if (!c.view.recentDatabases.empty() &&
            ImGui::BeginCombo("recent", c.workspace.path().c_str())) {
            for (const std::string& path : c.view.recentDatabases) {
                if (ImGui::Selectable(path.c_str())) {
                    c.view.pathField = path;
                    c.actions.openDatabase(path);
                }
            }
            ImGui::EndCombo();
        }
        if (!c.workspace.isOpen()) {
            ImGui::TextWrapped(
                "Open a database written by `glueprof ab` or `glueprof run` (runs.sqlite).");
            return;
        }
        ImGui::Text("%zu runs in %s", c.workspace.runSummaries().size(),
                    c.workspace.path().c_str());
        ImGui::TextDisabled("A = baseline, B = optimized; click A then B, or use the buttons.");
        const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders |
                                      ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                                      ImGuiTableFlags_Hideable;
        // As tall as its rows, up to 12 (then it scrolls): the panels below stay in view.
        const float rowHeight = ImGui::GetTextLineHeightWithSpacing() + 2.0F;
        const float rows =
            static_cast<float>(std::min<std::size_t>(c.workspace.runSummaries().size(), 12));
        if (!ImGui::BeginTable("runs", 7, flags, ImVec2(0.0F, rowHeight * (rows + 1.5F)))) return;
        ImGui::TableSetupScrollFreeze(0, 1);
        // The label takes the room there is; the short columns fit their content. Preset and
        // device start hidden (the header's context menu shows them; the label's tooltip says
        // them): at the panel's default width the label would otherwise show a few characters.
        for (const char* column :
             {"id", "label", "preset", "device", "status", "steps", "use as"}) {
            const std::string_view name(column);
            ImGui::TableSetupColumn(
                column, name == "label" ? ImGuiTableColumnFlags_WidthStretch
                        : name == "preset" || name == "device"
                            ? ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_DefaultHide
                            : ImGuiTableColumnFlags_WidthFixed);
        }
        ImGui::TableHeadersRow();
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(c.workspace.runSummaries().size()));
        while (clipper.Step()) {
            for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
                const RunSummary& r = c.workspace.runSummaries()[static_cast<std::size_t>(row)];
                const bool isA = r.id == c.workspace.selectedBaseline();
                const bool isB = r.id == c.workspace.selectedOptimized();
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::Text("%lld%s", static_cast<long long>(r.id),
                            isA   ? " (A)"
                            : isB ? " (B)"
                                  : "");
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(r.label.c_str());
                // The whole label when the column cuts it.
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip("%s (%s on %s)", r.label.c_str(), r.preset.c_str(),
                                      r.device.c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(r.preset.c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(r.device.c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(r.displayStatus().c_str());
                ImGui::TableNextColumn();
                ImGui::Text("%lld", static_cast<long long>(r.stepCount));
                ImGui::TableNextColumn();
                ImGui::PushID(row);
                if (ImGui::SmallButton("A"))
                    c.actions.selectRuns(r.id, c.workspace.selectedOptimized() == r.id
                                                   ? 0
                                                   : c.workspace.selectedOptimized());
                ImGui::SameLine();
                if (ImGui::SmallButton("B") && c.workspace.selectedBaseline() != r.id) {
                    c.actions.selectRuns(c.workspace.selectedBaseline(), r.id);
                }
                ImGui::PopID();
            }
        }
        ImGui::EndTable();
    }
};

}  // namespace

std::unique_ptr<Panel> makeRunsPanel() { return std::make_unique<RunsPanel>(); }

}  // namespace glueprof::gui
