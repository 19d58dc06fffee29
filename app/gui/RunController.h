#pragma once
// Runs A/Bs of the reference trainer from the app, on a background thread, into the workspace's
// database exactly as `glueprof ab` does (same runner, tracer and op observer). Progress, ETA and
// the per-step loss and step time are readable every frame; cancel stops after the current step
// (the runs are marked failed).
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace glueprof::gui {

class Log;

struct RunRequest {
    std::string db;
    std::string preset = "tiny";
    std::string device = "cpu";
    int steps = 4;
    int warmup = 2;
    int repeats = 3;
    std::vector<std::string> toggles;
};

struct RunSample {
    std::string arm;
    bool warmup = false;
    double loss = 0.0;
    double stepMs = 0.0;
};

class RunController {
  public:
    explicit RunController(Log& log) : m_log(log) {}
    ~RunController();

    // False (and a log error) when a run is already going or the request cannot start.
    bool start(const RunRequest& request);
    void cancel() { m_cancel = true; }
    bool running() const { return m_running; }
    // Set when a run finished since the last call (the App then reopens the database).
    bool takeFinished() { return m_finished.exchange(false); }
    bool finishedPending() const { return m_finished; }

    // Progress over the whole request: steps done / total, seconds left (negative until known).
    int done() const { return m_done; }
    int total() const { return m_total; }
    double secondsLeft() const;
    std::string current() const;
    std::vector<RunSample> samples() const;  // of the toggle running now

  private:
    void run(RunRequest request);

    Log& m_log;
    std::thread m_thread;
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_finished{false};
    std::atomic<int> m_done{0};
    std::atomic<int> m_total{0};
    std::chrono::steady_clock::time_point m_started;
    mutable std::mutex m_mutex;
    std::string m_current;
    std::vector<RunSample> m_samples;
};

}  // namespace glueprof::gui
