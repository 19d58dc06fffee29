#pragma once
// Every trace database this process has opened, so that no output file is ever written over one:
// a report, an export, a baseline, a JUnit file, a screenshot or a GUI state dump whose path names
// a database (by any path to the same file: a symlink, a hard link, `./`) or the -wal, -shm or
// -journal file SQLite keeps beside it is refused before anything is written.
#include <string>

namespace glueprof {

// Remembers PATH (opened by SqliteDb) for the rest of the process. Thread-safe.
void noteOpenedDatabase(const std::string& path);

// Forgets PATH (and every other path noted for the same file) once this process has removed it:
// a removed database has nothing left to protect, and the file system may give its inode to the
// next file anyone creates, which the guard would then take for the database. Thread-safe.
void forgetRemovedDatabase(const std::string& path);

// Throws an input error when writing OUTPUT would replace a database this process opened, or one
// of its -wal/-shm/-journal files: "OPTION 'OUTPUT' is the trace database 'DB' ...". OPTION names
// where the path came from ("--out"); empty for "output file".
void refuseOutputOntoDatabase(const std::string& output, const std::string& option = "");

}  // namespace glueprof
