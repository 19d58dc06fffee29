#pragma once
// How long the app takes to prepare and submit a frame (ImGui::NewFrame through the OpenGL draw
// call, CPU time on the main thread, without waiting for vsync). Shown in the View menu and written
// by
// --dump-state, so "the timeline stays interactive" is a number measured in the real app. App
// resets it when a new analysis comes in: the numbers are those of the view now shown, not of the
// loading screen.
#include <cstddef>
#include <vector>

namespace glueprof::gui {

struct FrameSummary {
    std::size_t frames = 0;
    double medianMs = 0.0;
    double p95Ms = 0.0;
    double maxMs = 0.0;
};

class FrameStats {
  public:
    void record(double milliseconds);
    void reset() { m_samples.clear(); }
    // Over the last `window` frames (all of them when fewer).
    FrameSummary summary() const;
    double lastMs() const { return m_samples.empty() ? 0.0 : m_samples.back(); }

  private:
    static constexpr std::size_t kWindow = 600;
    std::vector<double> m_samples;  // newest last, at most kWindow
};

}  // namespace glueprof::gui
