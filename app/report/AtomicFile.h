#pragma once
// Writes a file through a temporary renamed on success, so a failed or interrupted write never
// leaves a file that looks complete, nor a temporary behind. Every file glueprof writes goes
// through here:
// - the temporary is created exclusively (mkstemp: O_CREAT|O_EXCL, never through a symlink) in the
//   target's directory under a unique name, so nothing that already exists is ever written into;
// - a path naming a trace database this process opened (or its -wal/-shm), an existing SQLite
//   file of any other process, or a device/FIFO/socket is refused before anything is written
//   (OpenedDatabases.h);
// - a target that is a symlink is replaced by the new file (the link's target is left as it was);
// - SIGINT/SIGTERM during the write removes the temporary and ends with 130/143.
// Throws an input error naming the path.
#include <functional>
#include <ostream>
#include <string>

namespace glueprof {

void writeFileAtomically(const std::string& path, const std::string& contents);
// The refusals above, without writing: for a command that writes several files, each checked
// before the first is written.
void requireReplaceableOutput(const std::string& path);
// The same for contents streamed by `write` (large exports).
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace glueprof
