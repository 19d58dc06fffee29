#include "app/gui/Script.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "app/gui/App.h"

namespace glueprof::gui {

Script Script::load(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(fmt::format("cannot read the script {}", path));
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return Script(std::move(lines));
}

bool Script::waiting(App& app) const {
    return m_waiting &&
           (app.runner().running() || app.runner().finishedPending() || app.workspace().loading());
}

bool Script::step(App& app) {
    if (waiting(app)) return true;
    m_waiting = false;
    while (m_next < m_lines.size()) {
        std::istringstream words(m_lines[m_next++]);
        std::string verb;
        if (!(words >> verb) || verb[0] == '#') continue;
        if (verb == "open") {
            std::string path;
            words >> path;
            app.view().pathField = path;
            app.view().rememberDatabase(path);
            app.workspace().open(path);
        } else if (verb == "select") {
            long long baseline = 0;
            long long optimized = 0;
            words >> baseline >> optimized;
            app.workspace().select(baseline, optimized);
        } else if (verb == "show") {
            std::string panel;
            std::getline(words >> std::ws, panel);
            app.view().panelOpen[panel] = true;
            app.view().selectTab = panel;  // a main-area panel comes to the front
        } else if (verb == "align") {
            words >> app.view().alignStep;
            app.view().timelineToNs = app.view().timelineFromNs;  // re-home on the next frame
        } else if (verb == "highlight") {
            std::getline(words >> std::ws, app.view().highlightName);
        } else if (verb == "run") {
            RunRequest request;
            std::string toggles;
            words >> request.preset >> toggles;
            std::istringstream list(toggles);
            std::string toggle;
            while (std::getline(list, toggle, ',')) request.toggles.push_back(toggle);
            request.steps = 2;
            request.warmup = 1;
            request.repeats = 2;
            words >> request.steps >> request.warmup >> request.repeats;
            request.db = app.workspace().path();
            app.runner().start(request);
        } else if (verb == "wait") {
            m_waiting = true;
            return true;
        } else {
            app.log().error(fmt::format("script line {}: unknown action '{}'", m_next, verb));
        }
    }
    return false;
}

}  // namespace glueprof::gui
