#include "app/gui/RunController.h"

#include <fmt/format.h>

#include <exception>
#include <utility>

#include "app/gui/Log.h"
#include "reference_trainer/AbSuite.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/ScheduleBounds.h"

namespace glueprof::gui {

namespace {
struct Cancelled : std::exception {
    const char* what() const noexcept override { return "cancelled"; }
};
}  // namespace

RunController::~RunController() {
    m_cancel = true;
    if (m_thread.joinable()) m_thread.join();
}

bool RunController::start(const RunRequest& request) {
    if (m_running) {
        m_log.error("a run is already going: wait for it or cancel it");
        return false;
    }
    if (request.toggles.empty()) {
        m_log.error("choose at least one toggle to compare");
        return false;
    }
    const std::pair<int, const ScheduleBound*> schedule[] = {{request.steps, &kStepsBound},
                                                             {request.warmup, &kWarmupBound},
                                                             {request.repeats, &kRepeatsBound}};
    for (const auto& [value, bound] : schedule) {
        if (!bound->contains(value)) {
            m_log.error(fmt::format("a run needs {} to {} {} (as glueprof ab {}), not {}",
                                    bound->min, bound->max, bound->what, bound->option, value));
            return false;
        }
    }
    if (m_thread.joinable()) m_thread.join();
    m_cancel = false;
    m_done = 0;
    m_total = static_cast<int>(request.toggles.size()) * 2 *
              (request.warmup + request.steps * request.repeats);
    m_started = std::chrono::steady_clock::now();
    m_running = true;
    m_thread = std::thread([this, request] { run(request); });
    return true;
}

double RunController::secondsLeft() const {
    const int done = m_done;
    if (done == 0) return -1.0;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
    return elapsed / done * (m_total - done);
}

std::string RunController::current() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_current;
}

std::vector<RunSample> RunController::samples() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_samples;
}

// The GUI's Run A/B is the CLI's `ab`: one runAbSuite call; this only reports progress and
// samples to the panel and turns a cancel into an exception the suite stops on.
void RunController::run(RunRequest request) {
    try {
        AbRequest ab;
        ab.config = presetConfig(request.preset);
        ab.config.device = request.device;
        ab.toggles = request.toggles;
        ab.schedule = AbSchedule{request.warmup, request.steps, request.repeats};
        ab.db = request.db;
        const int perToggle = 2 * (request.warmup + request.steps * request.repeats);
        int before = 0;
        AbProgress progress;
        progress.notice = [this](const std::string& line) { m_log.info(line); };
        progress.toggleStarted = [&](const std::string& toggle, int index, int) {
            before = index * perToggle;
            std::lock_guard<std::mutex> lock(m_mutex);
            m_current = toggle;
            m_samples.clear();
        };
        progress.step = [&](const StepProgress& p) {
            m_done = before + p.done;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_samples.push_back(RunSample{p.arm, p.warmup, p.loss, p.stepMs});
            }
            if (m_cancel) throw Cancelled();
        };
        progress.toggleFinished = [&](const std::string& toggle) {
            m_log.info(fmt::format("A/B of {} on {} done", toggle, request.preset));
        };
        runAbSuite(ab, progress);
    } catch (const Cancelled&) {
        m_log.info("run cancelled; its runs are marked failed");
    } catch (const std::exception& e) {
        m_log.error(fmt::format("the A/B run failed: {}", e.what()));
    }
    m_running = false;
    m_finished = true;
}

}  // namespace glueprof::gui
