#include "app/gui/RunController.h"

#include <torch/torch.h>

#include <fmt/format.h>

#include <exception>

#include "app/gui/Log.h"
#include "optimizations/ToggleRegistry.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/host/HostTracer.h"
#include "profiler/torch_ops/OpObserver.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/CaptureScope.h"
#include "reference_trainer/Presets.h"

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

bool RunController::cudaAvailable(std::string& why) {
    static const bool available =
        torch::cuda::is_available();  // asked every frame: ask the driver once
    if (available) return true;
    why =
        "this libtorch has no CUDA or no GPU is visible (build against a CUDA libtorch with "
        "TORCH_DIR)";
    return false;
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

void RunController::run(RunRequest request) {
    try {
        TrainConfig config = presetConfig(request.preset);
        config.device = request.device;
        checkFitsInMemory(config, 2);
        TraceWriter writer(request.db);
        HostTracer tracer(writer);
        AbSchedule schedule{request.warmup, request.steps, request.repeats};
        {
            CaptureScope capture(config, tracer);  // CUPTI on CUDA runs, as glueprof ab does
            config.gpuCapture = capture.summary();
            m_log.info("GPU capture: " + config.gpuCapture);
            OpObserver observer(tracer);
            int before = 0;
            for (const std::string& name : request.toggles) {
                const Toggle* toggle = findToggle(name);
                if (toggle == nullptr) throw std::runtime_error("unknown toggle " + name);
                {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    m_current = name;
                    m_samples.clear();
                }
                runAbComparison(config, *toggle, schedule, tracer, [&](const StepProgress& p) {
                    m_done = before + p.done;
                    {
                        std::lock_guard<std::mutex> lock(m_mutex);
                        m_samples.push_back(RunSample{p.arm, p.warmup, p.loss, p.stepMs});
                    }
                    if (m_cancel) throw Cancelled();
                });
                before += 2 * (schedule.warmup + schedule.steps * schedule.repeats);
                m_log.info(fmt::format("A/B of {} on {} done", name, request.preset));
            }
        }
        writer.close();
    } catch (const Cancelled&) {
        m_log.info("run cancelled; its runs are marked failed");
    } catch (const std::exception& e) {
        m_log.error(fmt::format("the A/B run failed: {}", e.what()));
    }
    m_running = false;
    m_finished = true;
}

}  // namespace glueprof::gui
