// Pipeline: the Gantt of worker lanes (forward / recompute / backward) with the bubble ratio and
// its fill / switch / drain / intra breakdown, for runs that have workers.
#include <imgui.h>

#include <algorithm>

#include "app/gui/Panel.h"
#include "app/gui/widgets/Charts.h"
#include "app/report/Palette.h"

namespace glueprof::gui {

namespace {

class PipelinePanel : public Panel {
  public:
    const char* name() const override { return "Pipeline"; }
    Area area() const override { return Area::kMain; }

    void draw(PanelContext& c) override {
        const Results* results = c.workspace.results();
        if (results == nullptr) return;
        bool any = false;
        for (const RunAnalysis& r : results->runs) {
            const BubbleResult& b = r.analysis.bubbles;
            if (b.workers == 0) continue;
            any = true;
            ImGui::Text(
                "Run %lld (%s): %zu workers, makespan %.3f ms per step (median of %zu), bubble "
                "%.2f%% (%s)",
                static_cast<long long>(r.run.id), r.run.label.c_str(), b.workers,
                b.medianStepMakespanMs(), b.stepMakespansNs.size(), 100 * b.ratio,
                b.breakdownText().c_str());
            if (r.gantt.bars.empty()) continue;  // no step of it was measured
            const auto [start, end] = r.gantt.extent();
            ImDrawList* draw = ImGui::GetWindowDrawList();
            const ImVec2 origin = ImGui::GetCursorScreenPos();
            const float width = std::max(100.0F, ImGui::GetContentRegionAvail().x - 120.0F);
            const double scale = width / static_cast<double>(std::max<TimestampNs>(1, end - start));
            for (std::size_t w = 0; w < r.gantt.workers.size(); ++w) {
                draw->AddText(ImVec2(origin.x, origin.y + 18.0F * static_cast<float>(w)),
                              ImGui::GetColorU32(ImGuiCol_Text), r.gantt.workers[w].c_str());
            }
            for (const GanttBar& bar : r.gantt.bars) {
                const float x0 =
                    origin.x + 120.0F +
                    static_cast<float>(static_cast<double>(bar.startNs - start) * scale);
                const float x1 = origin.x + 120.0F +
                                 static_cast<float>(static_cast<double>(bar.endNs - start) * scale);
                const float y = origin.y + 18.0F * static_cast<float>(bar.worker);
                draw->AddRectFilled(ImVec2(x0, y), ImVec2(std::max(x1, x0 + 1.0F), y + 15.0F),
                                    imColour(pipelineKindColour(bar.kind)));
            }
            ImGui::Dummy(
                ImVec2(width + 120.0F, 18.0F * static_cast<float>(r.gantt.workers.size())));
        }
        if (!any)
            ImGui::TextWrapped(
                "No pipeline workers in the selected runs (pipelines come with `glueprof "
                "simulate`).");
    }
};

}  // namespace

std::unique_ptr<Panel> makePipelinePanel() { return std::make_unique<PipelinePanel>(); }

}  // namespace glueprof::gui
