#include "app/gui/widgets/Charts.h"

#include <algorithm>

namespace glueprof::gui {

ImU32 imColour(std::uint32_t rgb, float alpha) {
    return ImGui::ColorConvertFloat4ToU32(ImVec4(static_cast<float>((rgb >> 16) & 0xFF) / 255.0F,
                                                 static_cast<float>((rgb >> 8) & 0xFF) / 255.0F,
                                                 static_cast<float>(rgb & 0xFF) / 255.0F, alpha));
}

namespace {
// Room after every bar for its label, the same for all so that bars of one scale stay comparable:
// the width of the longest label the app writes there (an A/B's optimized arm with its interval).
float labelRoom() {
    return ImGui::CalcTextSize("B 00000.000 ms  0.000x [0.000, 0.000] (00 blocks)").x + 12.0F;
}
}  // namespace

void horizontalBar(double value, double maxValue, std::uint32_t rgb, const std::string& label,
                   float height) {
    stackedBar({Segment{value, rgb, label}}, maxValue, label, height);
}

void stackedBar(const std::vector<Segment>& segments, double total, const std::string& label,
                float height) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float room = labelRoom();
    const float width = std::max(50.0F, ImGui::GetContentRegionAvail().x - room);
    const double scale = total > 0 ? width / total : 0.0;
    float x = origin.x;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (const Segment& s : segments) {
        const float w = static_cast<float>(std::max(0.0, s.value * scale));
        if (w <= 0.0F) continue;
        const ImVec2 a(x, origin.y);
        const ImVec2 b(x + w, origin.y + height);
        draw->AddRectFilled(a, b, imColour(s.rgb));
        if (!s.tooltip.empty() && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y &&
            mouse.y < b.y) {
            ImGui::SetTooltip("%s", s.tooltip.c_str());
        }
        x += w;
    }
    draw->AddText(ImVec2(x + 6.0F, origin.y), ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
    ImGui::Dummy(ImVec2(width + room, height + 3.0F));
}

}  // namespace glueprof::gui
