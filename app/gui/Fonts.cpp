#include "app/gui/Fonts.h"

#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/gui/Log.h"

namespace glueprof::gui {

namespace {

// TrueType (0x00010000 or 'true'), OpenType CFF ('OTTO') or a collection ('ttcf'). ImGui asserts
// when its rasterizer cannot read a font, so anything else is refused before it gets there.
bool looksLikeFont(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    if (!in.read(magic, sizeof magic)) return false;
    const std::string tag(magic, sizeof magic);
    return tag == std::string("\0\1\0\0", 4) || tag == "true" || tag == "OTTO" || tag == "ttcf";
}

}  // namespace

std::vector<std::string> fontCandidates() {
    std::vector<std::string> paths;
    if (const char* env = std::getenv("GLUEPROF_FONT"); env != nullptr && *env != '\0')
        paths.emplace_back(env);
    std::error_code ec;
    std::vector<std::string> dropped;
    for (const auto& entry : std::filesystem::directory_iterator(GLUEPROF_FONTS_DIR, ec)) {
        const std::string ext = entry.path().extension().string();
        if (ext == ".ttf" || ext == ".otf" || ext == ".TTF" || ext == ".OTF")
            dropped.push_back(entry.path().string());
    }
    std::sort(dropped.begin(), dropped.end());  // deterministic when several are dropped in
    paths.insert(paths.end(), dropped.begin(), dropped.end());
    paths.emplace_back("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
    return paths;
}

std::string loadDefaultFont(float pixelSize, Log& log) {
    ImGuiIO& io = ImGui::GetIO();
    for (const std::string& path : fontCandidates()) {
        if (!std::filesystem::exists(path)) continue;
        if (!looksLikeFont(path)) {
            log.error("font " + path +
                      " is not a TrueType/OpenType font: remove it from assets/fonts or fix "
                      "GLUEPROF_FONT");
            continue;
        }
        if (ImFont* font = io.Fonts->AddFontFromFileTTF(path.c_str(), pixelSize); font != nullptr) {
            io.FontDefault = font;
            return path;
        }
    }
    log.info(
        "no TrueType font found (install fonts-dejavu-core or set GLUEPROF_FONT): using ImGui's "
        "built-in font");
    io.Fonts->AddFontDefault();
    return "";
}

}  // namespace glueprof::gui
