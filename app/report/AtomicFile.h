#pragma once
// Writes a file through a temporary name renamed on success, so a failed write never leaves a file
// that looks complete. Throws an input error naming the path. Every file glueprof writes goes
// through here.
#include <functional>
#include <ostream>
#include <string>

namespace glueprof {

void writeFileAtomically(const std::string& path, const std::string& contents);
// The same for contents streamed by `write` (large exports).
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace glueprof
