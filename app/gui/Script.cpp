#include "app/gui/Script.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "app/gui/App.h"
#include "reference_trainer/ScheduleBounds.h"

namespace glueprof::gui {

namespace {

// One of `run`'s STEPS WARMUP REPEATS into `value`: a whole number within the bound `glueprof ab`
// takes for the same flag (ScheduleBounds.h); otherwise what is wrong, for the log.
std::string scheduleNumber(const std::string& word, const ScheduleBound& bound, int& value) {
    long long number = 0;
    const char* end = word.data() + word.size();
    const auto [stop, status] = std::from_chars(word.data(), end, number);
    if (status == std::errc::invalid_argument || stop != end) {
        return fmt::format("run needs a whole number of {}, not '{}'", bound.what, word);
    }
    if (status == std::errc::result_out_of_range || !bound.contains(number)) {
        return fmt::format("run needs {} to {} {} (as glueprof ab {}), not {}", bound.min,
                           bound.max, bound.what, bound.option, word);
    }
    value = static_cast<int>(number);
    return "";
}

}  // namespace

Script Script::load(const std::string& path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
        throw std::runtime_error(
            fmt::format("cannot read the script {}: not a file; pass a script file", path));
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
        // A bad line: an error in the log; the script goes on, or ends when it stops at the
        // first error (a headless run, which then exits 2 having done nothing after it).
        auto failed = [&] {
            ++m_errors;
            if (m_stopAtFirstError) m_next = m_lines.size();
        };
        auto bad = [&](const std::string& what) {
            app.log().error(fmt::format("script line {}: {}", m_next, what));
            failed();
        };
        std::string verb;
        if (!(words >> verb) || verb[0] == '#') continue;
        if (verb == "open") {
            std::string path;
            words >> path;
            app.view().pathField = path;
            app.view().rememberDatabase(path);
            if (!app.workspace().open(path)) failed();  // the workspace logged why
        } else if (verb == "select") {
            long long baseline = 0;
            long long optimized = 0;
            if (!(words >> baseline) || baseline <= 0 || (!(words >> optimized) && !words.eof()) ||
                optimized < 0) {
                bad("select needs run ids: select BASELINE [OPTIMIZED]");
                continue;
            }
            app.workspace().select(baseline, optimized);
        } else if (verb == "show") {
            std::string panel;
            std::getline(words >> std::ws, panel);
            if (!app.hasPanel(panel)) {
                bad(fmt::format("no panel named '{}' (see the View menu)", panel));
                continue;
            }
            app.view().panelOpen[panel] = true;
            app.view().selectTab = panel;  // a main-area panel comes to the front
        } else if (verb == "align") {
            int step = 0;
            if (!(words >> step)) {
                bad("align needs a step number (-1: the first measured step)");
                continue;
            }
            app.view().alignStep = step;
            app.view().timelineToNs = app.view().timelineFromNs;  // re-home on the next frame
        } else if (verb == "highlight") {
            std::getline(words >> std::ws, app.view().highlightName);
        } else if (verb == "run") {
            RunRequest request;
            std::string toggles;
            std::vector<std::string> numbers;
            words >> request.preset >> toggles;
            for (std::string word; words >> word;) numbers.push_back(word);
            if (request.preset.empty() || toggles.empty() || numbers.size() > 3) {
                bad("run takes PRESET TOGGLE[,TOGGLE...] [STEPS WARMUP REPEATS]");
                continue;
            }
            std::istringstream list(toggles);
            std::string toggle;
            while (std::getline(list, toggle, ',')) request.toggles.push_back(toggle);
            request.steps = 2;
            request.warmup = 1;
            request.repeats = 2;
            int* const fields[] = {&request.steps, &request.warmup, &request.repeats};
            const ScheduleBound* const bounds[] = {&kStepsBound, &kWarmupBound, &kRepeatsBound};
            std::string problem;
            for (std::size_t i = 0; i < numbers.size() && problem.empty(); ++i) {
                problem = scheduleNumber(numbers[i], *bounds[i], *fields[i]);
            }
            if (!problem.empty()) {
                bad(problem);
                continue;
            }
            request.db = app.workspace().path();
            if (!app.runner().start(request)) failed();  // the runner logged why
        } else if (verb == "wait") {
            m_waiting = true;
            return true;
        } else {
            bad(fmt::format("unknown action '{}'", verb));
        }
    }
    return false;
}

}  // namespace glueprof::gui
