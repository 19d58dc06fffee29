#pragma once
// What the command line asks of a session besides its window, kept out of main.cpp's frame loop:
// --db and --script (a script steps once per frame, in a window too) and, for a headless run
// (--frames N: tests and CI under Xvfb), the frames to draw, the screenshot of the last one, the
// --dump-state file and the exit code. The loop calls beginFrame() before polling events and
// endFrame() after drawing, before the swap.
#include <memory>
#include <optional>

#include "app/gui/GuiOptions.h"

namespace glueprof::gui {

class App;
class Script;

class CommandLineSession {
  public:
    CommandLineSession(const GuiOptions& options, App& app);
    ~CommandLineSession();

    // Opens --db and loads --script. In a window a failure is an error in the log; headless,
    // nothing may run on the wrong database or without its script: the code to exit with (2),
    // the error on stderr.
    std::optional<int> start();

    // One step of the script (a short sleep while it runs, so its work gets the CPU); before the
    // last frames of a headless run, waits for the analysis so that they show it.
    void beginFrame();

    // The frame is drawn, not yet swapped: counts it (frames drawn while the script runs do not
    // count). At a headless run's last frame, writes the screenshot of the framebuffer and returns
    // true: the loop ends after this swap.
    bool endFrame(int framebufferWidth, int framebufferHeight);

    // After the loop: writes --dump-state; the exit code. Headless runs are scripts and tests: an
    // error logged (a bad script line, an A/B that failed) is a failure there (2, the first error
    // on stderr), not a log line nobody reads.
    int finish();

  private:
    const GuiOptions& m_options;
    App& m_app;
    std::unique_ptr<Script> m_script;
    bool m_scripting = false;  // the script ran a step this frame
    int m_frame = 0;           // frames drawn after the script ended
    int m_exitCode = 0;
};

}  // namespace glueprof::gui
