// Diagnostics: anything the capture lost or skipped, per selected run, shown prominently.
#include <imgui.h>

#include "app/gui/Panel.h"
#include "profiler/core/Diagnostics.h"

namespace glueprof::gui {

namespace {

class DiagnosticsPanel : public Panel {
  public:
    const char* name() const override { return "Diagnostics"; }

    Area area() const override { return Area::kSidebar; }

    void draw(PanelContext& c) override {
        const Results* results = c.workspace.results();
        if (results == nullptr) return;
        bool any = false;
        for (const RunAnalysis& r : results->runs) {
            for (const Diagnostic& d : r.diagnostics) {
                any = true;
                // A loss in red; an import's note (skipped, derived) in the normal colour.
                const bool lost = isLoss(d.name);
                if (lost) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0F, 0.4F, 0.35F, 1.0F));
                ImGui::TextWrapped("run %lld: %s = %lld", static_cast<long long>(r.run.id),
                                   d.name.c_str(), static_cast<long long>(d.value));
                if (lost) ImGui::PopStyleColor();
                ImGui::TextWrapped("  %s", d.detail.c_str());
            }
        }
        if (!any) ImGui::TextUnformatted("Nothing lost: no diagnostics in the selected runs.");
    }
};

}  // namespace

std::unique_ptr<Panel> makeDiagnosticsPanel() { return std::make_unique<DiagnosticsPanel>(); }

}  // namespace glueprof::gui
