// Copy/compute overlap of the selected runs: totals by lane, name, direction and host memory kind,
// and the copy strip of the first measured step (green where compute covered a copy, red where
// exposed).
#include <imgui.h>

#include <fmt/format.h>

#include "app/gui/Panel.h"
#include "app/gui/widgets/Charts.h"
#include "app/report/Palette.h"

namespace glueprof::gui {

namespace {

void totalsTable(const char* id, const char* what, const std::map<std::string, CopyTotals>& rows) {
    if (rows.empty() || !ImGui::BeginTable(id, 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders))
        return;
    for (const char* column : {what, "copies", "copy ms", "exposed ms", "overlap", "GB/s"})
        ImGui::TableSetupColumn(column);
    ImGui::TableHeadersRow();
    for (const auto& [key, t] : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(key.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%lld", static_cast<long long>(t.copies));
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", static_cast<double>(t.copyNs) / 1e6);
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", static_cast<double>(t.exposedNs()) / 1e6);
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", t.overlapRatio());
        ImGui::TableNextColumn();
        ImGui::Text("%.2f", t.bandwidthGBps());
    }
    ImGui::EndTable();
}

class OverlapPanel : public Panel {
  public:
    const char* name() const override { return "Overlap"; }
    Area area() const override { return Area::kMain; }

    void draw(PanelContext& c) override {
        const Results* results = c.workspace.results();
        if (results == nullptr) return;
        for (const RunAnalysis& r : results->runs) {
            const CopyOverlapResult& o = r.analysis.copyOverlap;
            ImGui::Text("Run %lld %s: overlap ratio %.3f, exposed %.3f ms per step (compute = %s)",
                        static_cast<long long>(r.run.id), r.run.label.c_str(),
                        o.total.overlapRatio(), o.exposedMsPerStep(),
                        o.computeFromKernels ? "kernels" : "host ops");
            if (o.total.copies == 0) {
                ImGui::TextDisabled("  no copies in this run");
                continue;
            }
            ImGui::PushID(static_cast<int>(r.run.id));
            totalsTable("lane", "lane", o.byLane);
            totalsTable("name", "copy", o.byName);
            totalsTable("direction", "direction", o.byDirection);
            totalsTable("memory", "host memory", o.byHostMemory);
            if (!r.strip.copies.empty() && r.strip.endNs > r.strip.startNs) {
                ImGui::Text("Copies of step %d:", r.strip.step);
                const double length = static_cast<double>(r.strip.endNs - r.strip.startNs);
                std::vector<Segment> strip;
                TimestampNs cursor = r.strip.startNs;
                for (const CopySpan& copy : r.strip.copies) {
                    TimestampNs at = std::max(cursor, copy.startNs);
                    strip.push_back(Segment{static_cast<double>(at - cursor), 0x303030, ""});
                    for (const auto& [start, end] : copy.covered) {
                        if (start > at)
                            strip.push_back(Segment{static_cast<double>(start - at), kExposedColour,
                                                    copy.name + " exposed"});
                        strip.push_back(Segment{static_cast<double>(end - std::max(start, at)),
                                                kCoveredColour, copy.name + " covered"});
                        at = std::max(at, end);
                    }
                    if (copy.endNs > at)
                        strip.push_back(Segment{static_cast<double>(copy.endNs - at),
                                                kExposedColour, copy.name + " exposed"});
                    cursor = std::max(cursor, copy.endNs);
                }
                stackedBar(strip, length, fmt::format("{:.2f} ms", length / 1e6), 20.0F);
            }
            ImGui::PopID();
            ImGui::Separator();
        }
    }
};

}  // namespace

std::unique_ptr<Panel> makeOverlapPanel() { return std::make_unique<OverlapPanel>(); }

}  // namespace glueprof::gui
