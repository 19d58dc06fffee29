// Sync points: the run's sync points grouped by op or by layer, sortable by count or blocked time,
// then every point (list clipper for long tables); clicking a point zooms the timeline to it.
#include <imgui.h>

#include <algorithm>

#include "app/gui/Panel.h"

namespace glueprof::gui {

namespace {

class SyncPointsPanel : public Panel {
  public:
    const char* name() const override { return "Sync points"; }
    Area area() const override { return Area::kMain; }

    void draw(PanelContext& c) override {
        const Results* results = c.workspace.results();
        if (results == nullptr) return;
        if (results->runs.size() > 1) {
            ImGui::SetNextItemWidth(120.0F);
            ImGui::Combo("run", &m_run,
                         results->runs.size() > 1 ? "A (baseline)\0B (optimized)\0" : "A\0");
            ImGui::SameLine();
        }
        m_run = std::clamp(m_run, 0, static_cast<int>(results->runs.size()) - 1);
        const SyncPointsResult& syncs =
            results->runs[static_cast<std::size_t>(m_run)].analysis.syncPoints;
        // Two views (docs/metrics.md, "Sync points"): the ops that would make the host wait on a
        // GPU, timed by the ops themselves; and, where a GPU was captured, the host syncs that
        // did, timed by how long the host was blocked.
        // First shown: a GPU trace's real host syncs, else the would-sync ops.
        if (m_grouping < 0) m_grouping = syncs.hostSyncsCaptured ? 2 : 0;
        ImGui::RadioButton("would-sync ops by op", &m_grouping, 0);
        ImGui::SameLine();
        ImGui::RadioButton("by layer", &m_grouping, 1);
        if (syncs.hostSyncsCaptured) {
            ImGui::SameLine();
            ImGui::RadioButton("host syncs by op", &m_grouping, 2);
        } else if (m_grouping == 2) {
            m_grouping = 0;
        }
        std::vector<SyncGroup> groups =
            m_grouping == 0 ? syncs.byOp : (m_grouping == 1 ? syncs.byLayer : syncs.hostSyncsByOp);
        const char* timeColumn = m_grouping == 2 ? "blocked ms" : "ms in the ops";

        const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg |
                                      ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY |
                                      ImGuiTableFlags_Resizable;
        if (ImGui::BeginTable("groups", 3, flags,
                              ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 8))) {
            ImGui::TableSetupScrollFreeze(0, 1);
            ImGui::TableSetupColumn(m_grouping == 1 ? "layer" : "op", ImGuiTableColumnFlags_NoSort);
            ImGui::TableSetupColumn("count", ImGuiTableColumnFlags_DefaultSort |
                                                 ImGuiTableColumnFlags_PreferSortDescending);
            ImGui::TableSetupColumn(timeColumn, ImGuiTableColumnFlags_PreferSortDescending);
            ImGui::TableHeadersRow();
            if (ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs();
                sort != nullptr && sort->SpecsCount > 0) {
                const ImGuiTableColumnSortSpecs& spec = sort->Specs[0];
                const bool descending = spec.SortDirection == ImGuiSortDirection_Descending;
                std::sort(groups.begin(), groups.end(),
                          [&](const SyncGroup& a, const SyncGroup& b) {
                              const double x =
                                  spec.ColumnIndex == 2 ? a.totalMs : static_cast<double>(a.count);
                              const double y =
                                  spec.ColumnIndex == 2 ? b.totalMs : static_cast<double>(b.count);
                              return descending ? x > y : x < y;
                          });
            }
            for (const SyncGroup& g : groups) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(g.key.c_str());
                ImGui::TableNextColumn();
                ImGui::Text("%lld", static_cast<long long>(g.count));
                ImGui::TableNextColumn();
                ImGui::Text("%.3f", g.totalMs);
            }
            ImGui::EndTable();
        }
        const std::vector<SyncPoint>& points = m_grouping == 2 ? syncs.hostSyncs : syncs.points;
        ImGui::Text("%zu %s in the measured steps (click one to show it on the timeline)",
                    points.size(), m_grouping == 2 ? "host syncs" : "sync points");
        if (!ImGui::BeginTable(
                "points", 4,
                ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Borders))
            return;
        ImGui::TableSetupScrollFreeze(0, 1);
        for (const char* column : {"step", "layer", "op", "range"}) ImGui::TableSetupColumn(column);
        ImGui::TableHeadersRow();
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(points.size()));
        const TraceModel* trace = static_cast<std::size_t>(m_run) < c.workspace.traces().size()
                                      ? &c.workspace.traces()[static_cast<std::size_t>(m_run)]
                                      : nullptr;
        while (clipper.Step()) {
            for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
                const SyncPoint& p = points[static_cast<std::size_t>(i)];
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::PushID(i);
                if (ImGui::Selectable(std::to_string(p.step).c_str(), false,
                                      ImGuiSelectableFlags_SpanAllColumns) &&
                    trace != nullptr) {
                    jumpTo(*trace, p, c.view);
                }
                ImGui::PopID();
                ImGui::TableNextColumn();
                if (p.layer == kNoTag) {
                    ImGui::TextUnformatted("outside layers");
                } else {
                    ImGui::Text("%d", p.layer);
                }
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(p.op.c_str());
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(p.range.c_str());
            }
        }
        ImGui::EndTable();
    }

  private:
    // Aligns the timeline at the point's step and centres a window ten times its duration on it.
    static void jumpTo(const TraceModel& trace, const SyncPoint& p, ViewState& v) {
        for (const StepInfo& s : trace.steps()) {
            if (s.step != p.step) continue;
            v.alignStep = p.step;
            const double at = static_cast<double>(p.startNs - s.startNs);
            const double half = std::max(5.0 * static_cast<double>(p.durationNs), 2000.0);
            v.timelineFromNs = at - half;
            v.timelineToNs = at + half;
            v.panelOpen["Timeline"] = true;
        }
    }

    int m_run = 0;
    int m_grouping = -1;  // 0 would-sync ops by op, 1 by layer, 2 host syncs by op; -1 not chosen
};

}  // namespace

std::unique_ptr<Panel> makeSyncPointsPanel() { return std::make_unique<SyncPointsPanel>(); }

}  // namespace glueprof::gui
