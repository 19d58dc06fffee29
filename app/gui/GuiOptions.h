#pragma once
// glueprof-gui's command line: what to open and, for tests and CI, what a headless run draws and
// writes. Parsing is apart from the window so that a bad option is refused before any display is
// touched, and so that tests check it without one.
#include <optional>
#include <ostream>
#include <string>

namespace glueprof::gui {

struct GuiOptions {
    std::string db;          // --db: trace database to open
    std::string screenshot;  // --screenshot: the last frame as PNG (headless)
    std::string dumpState;   // --dump-state: JSON of what is shown
    std::string scriptPath;  // --script: actions run before the frames are counted
    int frames = 0;          // --frames: draw this many, then exit; 0 runs until closed
    int width = 1600;        // --size WIDTHxHEIGHT (or WIDTH alone: the height stays)
    int height = 1000;

    // A headless run (--frames N, under Xvfb in tests and CI) starts from the default layout and
    // view, saves neither, and exits 2 on any error it logged.
    bool headless() const { return frames > 0; }
};

// The command line parsed, or the code to exit with at once: 0 after --help (the help on `out`);
// after a bad option or value, 1 (the usage code of `glueprof`, docs/cli.md) and one line on `err`
// naming the option and the fix.
struct GuiCommandLine {
    GuiOptions options;
    std::optional<int> exitNow;
};

GuiCommandLine parseGuiOptions(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err);

// `--size`'s value: "WIDTHxHEIGHT" sets both, "WIDTH" alone only the width; each a whole number
// of pixels from kMinWindowSide to kMaxWindowSide. False (nothing changed) for anything else.
inline constexpr int kMinWindowSide = 64;
inline constexpr int kMaxWindowSide = 16384;
bool parseWindowSize(const std::string& text, int& width, int& height);

}  // namespace glueprof::gui
