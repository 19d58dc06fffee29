#pragma once
// Trace-derived text inside HTML, SVG or XML (JUnit): &, <, >, " and ' as character references,
// valid in all three, so a kernel named <script> stays text.
#include <string>

namespace glueprof {

std::string escapeMarkup(const std::string& text);

}  // namespace glueprof
