// Log: every message the GUI produced, errors in red (they also show as toasts).
#include <imgui.h>

#include "app/gui/Panel.h"

namespace glueprof::gui {

namespace {

class LogPanel : public Panel {
  public:
    const char* name() const override { return "Log"; }

    Area area() const override { return Area::kSidebar; }

    void draw(PanelContext& c) override {
        const std::vector<LogEntry> entries = c.log.entries();
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(entries.size()));
        while (clipper.Step()) {
            for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
                const LogEntry& e = entries[static_cast<std::size_t>(i)];
                if (e.level == LogEntry::Level::kError)
                    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0F, 0.4F, 0.35F, 1.0F));
                ImGui::TextWrapped("%s", e.text.c_str());
                if (e.level == LogEntry::Level::kError) ImGui::PopStyleColor();
            }
        }
    }
};

}  // namespace

std::unique_ptr<Panel> makeLogPanel() { return std::make_unique<LogPanel>(); }

}  // namespace glueprof::gui
