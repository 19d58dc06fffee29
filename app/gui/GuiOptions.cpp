#include "app/gui/GuiOptions.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <string_view>

#include "profiler/core/Error.h"

namespace glueprof::gui {

namespace {

// A whole number of pixels in the window's bounds: digits only (no sign, space or exponent).
bool parseSide(std::string_view text, int& side) {
    int value = 0;
    const char* end = text.data() + text.size();
    const auto [last, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || text.front() == '-' || error != std::errc() || last != end) return false;
    if (value < kMinWindowSide || value > kMaxWindowSide) return false;
    side = value;
    return true;
}

CLI::Validator windowSize() {
    return CLI::Validator(
        [](std::string& input) -> std::string {
            int width = 0;
            int height = 0;
            if (parseWindowSize(input, width, height)) return "";
            return "'" + input + "' is not WIDTHxHEIGHT (or WIDTH), each a whole number from " +
                   std::to_string(kMinWindowSide) + " to " + std::to_string(kMaxWindowSide) +
                   " pixels";
        },
        "WIDTHxHEIGHT");
}

}  // namespace

bool parseWindowSize(const std::string& text, int& width, int& height) {
    const std::string_view all(text);
    const std::size_t x = all.find('x');
    int newWidth = 0;
    int newHeight = height;
    if (!parseSide(all.substr(0, x), newWidth)) return false;
    if (x != std::string_view::npos && !parseSide(all.substr(x + 1), newHeight)) return false;
    width = newWidth;
    height = newHeight;
    return true;
}

GuiCommandLine parseGuiOptions(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err) {
    CLI::App cli{"glueprof-gui: visual A/B profiling of the glue code around the math kernels"};
    GuiCommandLine parsed;
    GuiOptions& options = parsed.options;
    std::string size = std::to_string(options.width) + "x" + std::to_string(options.height);
    cli.add_option("--db", options.db, "trace database to open");
    cli.add_option("--frames", options.frames,
                   "render this many frames, then exit (0 = run until closed)")
        ->check(CLI::Range(0, 100000000));
    cli.add_option("--screenshot", options.screenshot, "save the last frame as PNG");
    cli.add_option("--dump-state", options.dumpState,
                   "write JSON of what is shown (panels, selection, dashboard numbers)");
    cli.add_option("--script", options.scriptPath,
                   "run these actions (open, select, show, align, run, wait) before the frames");
    cli.add_option("--size", size, "window size in pixels (WIDTH alone keeps the height)")
        ->capture_default_str()
        ->check(windowSize());
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        parsed.exitNow = cli.exit(e, out, err);
        return parsed;
    } catch (const CLI::ParseError& e) {
        // One line and the usage exit code, as `glueprof` does (docs/cli.md): CLI11's own exit()
        // returns its internal codes (104 for a value that does not convert).
        err << "glueprof-gui: " << e.what() << " (see glueprof-gui --help)\n";
        parsed.exitNow = static_cast<int>(ExitCode::kUsage);
        return parsed;
    }
    parseWindowSize(size, options.width, options.height);  // checked above
    return parsed;
}

}  // namespace glueprof::gui
