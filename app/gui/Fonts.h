#pragma once
// The GUI's text font. ImGui's built-in bitmap font is 13 px and blurs when scaled, so glueprof-gui
// rasterizes a TrueType font at the window's content scale (high-DPI sharp). Where it comes from,
// first found wins: $GLUEPROF_FONT; a .ttf dropped into assets/fonts/ (see assets/fonts/README.md);
// DejaVu Sans from Debian's fonts-dejavu-core (scripts/bootstrap.sh installs it); else ImGui's
// built-in font.
#include <string>
#include <vector>

namespace glueprof::gui {

class Log;

// The candidate paths in search order (existing or not).
std::vector<std::string> fontCandidates();

// Adds the first readable candidate to ImGui's font atlas at `pixelSize` and makes it the default.
// Returns the path used, or "" when it fell back to the built-in font (and says so in the log).
std::string loadDefaultFont(float pixelSize, Log& log);

}  // namespace glueprof::gui
