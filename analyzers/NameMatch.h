#pragma once
// Matching the names in a trace (kernels, ranges, calls) by parts, case-insensitively: what the
// kernel classes, the kernel categories and the advisor's rules all look for.
#include <initializer_list>
#include <string>

namespace glueprof {

std::string lowerCased(const std::string& text);  // ASCII letters only
// TEXT holds any of PARTS, case-insensitively (the parts are lower-case).
bool containsAny(const std::string& text, std::initializer_list<const char*> parts);

}  // namespace glueprof
