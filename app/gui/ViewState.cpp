#include "app/gui/ViewState.h"
#include "app/report/ResultsJson.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace glueprof::gui {

void ViewState::rememberDatabase(const std::string& path) {
    recentDatabases.erase(std::remove(recentDatabases.begin(), recentDatabases.end(), path),
                          recentDatabases.end());
    recentDatabases.insert(recentDatabases.begin(), path);
    if (recentDatabases.size() > 8) recentDatabases.resize(8);
}

std::string ViewState::toJson() const {
    nlohmann::json j = {{"panels", panelOpen},
                        {"path", pathField},
                        {"recent", recentDatabases},
                        {"sidebar_width", sidebarWidth}};
    return jsonText(j);
}

ViewState ViewState::fromJson(const std::string& text) {
    ViewState v;
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return v;
    if (j.contains("panels") && j["panels"].is_object()) {
        for (const auto& [name, open] : j["panels"].items()) {
            if (open.is_boolean()) v.panelOpen[name] = open.get<bool>();
        }
    }
    if (j.contains("path") && j["path"].is_string()) v.pathField = j["path"].get<std::string>();
    if (j.contains("sidebar_width") && j["sidebar_width"].is_number()) {
        const float width = j["sidebar_width"].get<float>();
        if (width >= 0.1F && width <= 0.6F) v.sidebarWidth = width;
    }
    if (j.contains("recent") && j["recent"].is_array()) {
        for (const auto& r : j["recent"]) {
            if (r.is_string()) v.recentDatabases.push_back(r.get<std::string>());
        }
    }
    return v;
}

}  // namespace glueprof::gui
