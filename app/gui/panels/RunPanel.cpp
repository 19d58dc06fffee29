// Run: an A/B of the chosen toggles on the built-in trainer, written to the open database as the
// CLI writes it; progress with ETA, live loss and step-time charts, cancel.
#include <imgui.h>

#include <fmt/format.h>

#include <cfloat>
#include <map>

#include "app/gui/Panel.h"
#include "profiler/core/ToggleCatalog.h"
#include "profiler/torch_ops/CudaDevice.h"
#include "reference_trainer/Presets.h"

namespace glueprof::gui {

namespace {

class RunPanel : public Panel {
  public:
    const char* name() const override { return "Run A/B"; }
    Area area() const override { return Area::kSidebar; }
    bool openByDefault() const override { return false; }

    void draw(PanelContext& c) override {
        const RunController& runner = c.runner;
        const std::vector<Preset>& all = presets();
        if (ImGui::BeginCombo("preset", all[static_cast<std::size_t>(m_preset)].name.c_str())) {
            for (std::size_t i = 0; i < all.size(); ++i) {
                if (ImGui::Selectable(all[i].name.c_str(), static_cast<int>(i) == m_preset))
                    m_preset = static_cast<int>(i);
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", all[i].description.c_str());
            }
            ImGui::EndCombo();
        }
        std::string why;
        const bool cuda = cudaAvailable(why);
        ImGui::RadioButton("cpu", &m_device, 0);
        ImGui::SameLine();
        if (!cuda) ImGui::BeginDisabled();
        ImGui::RadioButton("cuda", &m_device, 1);
        if (!cuda) {
            ImGui::EndDisabled();
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                ImGui::SetTooltip("%s", why.c_str());
            m_device = 0;
        }
        ImGui::SliderInt("steps per block", &m_steps, 1, 20);
        ImGui::SliderInt("warm-up steps", &m_warmup, 0, 10);
        ImGui::SliderInt("blocks per arm", &m_repeats, 1, 10);
        const bool moe = all[static_cast<std::size_t>(m_preset)].config.model.isMoe();
        for (const ToggleInfo& t : toggleCatalog()) {
            const std::string reason = notApplicableReason(t, moe);
            if (!reason.empty()) ImGui::BeginDisabled();
            bool& on = m_chosen[t.name];
            ImGui::Checkbox(t.name.c_str(), &on);
            if (!reason.empty()) {
                ImGui::EndDisabled();
                on = false;
            }
            ImGui::SameLine();
            ImGui::TextDisabled("%s", reason.empty() ? t.description.c_str() : reason.c_str());
        }
        if (!c.workspace.isOpen()) {
            ImGui::TextWrapped(
                "Open (or name) a database in the Runs panel: the runs are written there.");
        } else if (runner.running()) {
            if (ImGui::Button("Cancel")) c.actions.cancelRun();
        } else if (ImGui::Button("Run A/B")) {
            RunRequest request;
            request.db = c.workspace.path();
            request.preset = all[static_cast<std::size_t>(m_preset)].name;
            request.device = m_device == 1 ? "cuda" : "cpu";
            request.steps = m_steps;
            request.warmup = m_warmup;
            request.repeats = m_repeats;
            for (const auto& [name, on] : m_chosen) {
                if (on) request.toggles.push_back(name);
            }
            c.actions.startRun(request);
        }
        if (runner.total() > 0) {
            const float fraction =
                static_cast<float>(runner.done()) / static_cast<float>(runner.total());
            const double left = runner.secondsLeft();
            ImGui::ProgressBar(
                fraction, ImVec2(-1, 0),
                fmt::format("{} {}/{}{}", runner.current(), runner.done(), runner.total(),
                            left >= 0 ? fmt::format(", about {:.0f} s left", left) : "")
                    .c_str());
            std::vector<float> loss;
            std::vector<float> stepMs;
            for (const RunSample& s : runner.samples()) {
                loss.push_back(static_cast<float>(s.loss));
                stepMs.push_back(static_cast<float>(s.stepMs));
            }
            if (!loss.empty()) {
                ImGui::PlotLines("loss", loss.data(), static_cast<int>(loss.size()), 0, nullptr,
                                 FLT_MAX, FLT_MAX, ImVec2(0, 60));
                ImGui::PlotLines("step ms", stepMs.data(), static_cast<int>(stepMs.size()), 0,
                                 nullptr, FLT_MAX, FLT_MAX, ImVec2(0, 60));
            }
        }
    }

  private:
    int m_preset = 0;
    int m_device = 0;
    int m_steps = 2;
    int m_warmup = 1;
    int m_repeats = 2;
    std::map<std::string, bool> m_chosen{{"packed_cache", true}};
};

}  // namespace

std::unique_ptr<Panel> makeRunPanel() { return std::make_unique<RunPanel>(); }

}  // namespace glueprof::gui
