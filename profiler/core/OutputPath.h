#pragma once
// Checks an output path before anything is written, so a command that would fail at its end (a
// database, a report in a directory that does not exist) fails at its start instead.
#include <string>

namespace glueprof {

// Throws an input error "WHAT 'PATH' is a FIFO, not a regular file; FIX" when PATH exists and is
// neither a regular file nor a directory (a device, a FIFO, a socket: `--db /dev/null`,
// `--out /dev/stdout`); nothing when it is absent.
void requireRegularFileOrNone(const std::string& path, const std::string& what,
                              const std::string& fix);

// Throws an input error "cannot WHAT 'PATH': directory 'DIR' does not exist; create it or pass
// another OPTION" when PATH's directory is missing (a bare file name means the working directory),
// and one naming the problem when PATH is a directory or its directory is not writable (a database
// needs its -wal and -shm files beside it). A PATH that is a special file is refused first
// (requireRegularFileOrNone).
void requireParentDirectory(const std::string& path, const std::string& what,
                            const std::string& option);

// The directory PATH lives in ("." for a bare file name).
std::string directoryOf(const std::string& path);
// Whether this process may create files in PATH's directory by its permission bits (access(2)):
// what SQLite's -wal and -shm files beside a database need.
bool directoryPermitsWriting(const std::string& path);

// Throws an input error when the output file PATH is an existing directory or would overwrite the
// trace database DB (or its -wal/-shm files): a report written over its own database destroys it.
// DB counts as opened by this process from here on (OpenedDatabases.h).
void requireOutputBesideDatabase(const std::string& path, const std::string& db,
                                 const std::string& option);

}  // namespace glueprof
