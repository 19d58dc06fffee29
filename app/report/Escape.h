#pragma once
// Trace-derived text inside HTML, SVG or XML (JUnit): &, <, >, " and ' as character references,
// valid in all three, so a kernel named <script> stays text.
#include <string>

namespace glueprof {

std::string escapeMarkup(const std::string& text);

// Trace-derived text in Markdown prose or a table cell: the characters Markdown would read as
// emphasis, code, links, HTML or a cell border get a backslash (CommonMark's escapes), so an
// advisor line quoting `void at::native::<lambda>*` renders as written.
std::string escapeMarkdown(const std::string& text);

}  // namespace glueprof
