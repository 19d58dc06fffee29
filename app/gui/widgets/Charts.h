#pragma once
// Charts drawn with ImDrawList (Debian has no plotting library for ImGui; Tracy draws its own too).
// Colours come from app/report/Palette.h, the same as the HTML report's.
#include <imgui.h>

#include <cstdint>
#include <string>
#include <vector>

namespace glueprof::gui {

ImU32 imColour(std::uint32_t rgb, float alpha = 1.0F);

struct Segment {
    double value = 0.0;
    std::uint32_t rgb = 0;
    std::string tooltip;
};

// A horizontal bar of `value` out of `maxValue` across the available width, with a label after it.
void horizontalBar(double value, double maxValue, std::uint32_t rgb, const std::string& label,
                   float height = 14.0F);
// A horizontal stacked bar; `total` scales it; hovering a segment shows its tooltip.
void stackedBar(const std::vector<Segment>& segments, double total, const std::string& label,
                float height = 14.0F);

}  // namespace glueprof::gui
