// Glue breakdown: every measured step's wall time split into math / glue / optimizer / data /
// pipeline / copy / sync wait / idle (the parts sum to the wall time), per selected run, as a
// table.
#include <imgui.h>

#include "app/gui/Panel.h"

namespace glueprof::gui {

namespace {

class GluePanel : public Panel {
  public:
    const char* name() const override { return "Glue breakdown"; }
    Area area() const override { return Area::kMain; }

    void draw(PanelContext& c) override {
        const Results* results = c.workspace.results();
        if (results == nullptr) return;
        for (const RunAnalysis& r : results->runs) {
            ImGui::Text("Run %lld %s (ms; parts sum to the wall time)",
                        static_cast<long long>(r.run.id), r.run.label.c_str());
            ImGui::PushID(static_cast<int>(r.run.id));
            if (ImGui::BeginTable("glue", static_cast<int>(kGluePartCount) + 2,
                                  ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders)) {
                ImGui::TableSetupColumn("step");
                ImGui::TableSetupColumn("wall");
                for (std::size_t p = 0; p < kGluePartCount; ++p)
                    ImGui::TableSetupColumn(toString(static_cast<GluePart>(p)));
                ImGui::TableHeadersRow();
                for (const GlueStep& s : r.analysis.glue.steps) {
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    ImGui::Text("%d", s.step);
                    ImGui::TableNextColumn();
                    ImGui::Text("%.3f", static_cast<double>(s.wallNs) / 1e6);
                    for (std::size_t p = 0; p < kGluePartCount; ++p) {
                        ImGui::TableNextColumn();
                        ImGui::Text("%.3f", static_cast<double>(s.partNs[p]) / 1e6);
                    }
                }
                ImGui::EndTable();
            }
            ImGui::PopID();
        }
    }
};

}  // namespace

std::unique_ptr<Panel> makeGluePanel() { return std::make_unique<GluePanel>(); }

}  // namespace glueprof::gui
