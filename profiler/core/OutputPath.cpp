#include "profiler/core/OutputPath.h"

#include <fmt/format.h>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "profiler/core/Error.h"
#include "profiler/core/OpenedDatabases.h"

namespace glueprof {

std::string directoryOf(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? "." : parent.string();
}

bool directoryPermitsWriting(const std::string& path) {
    return ::access(directoryOf(path).c_str(), W_OK) == 0;
}

void requireRegularFileOrNone(const std::string& path, const std::string& what,
                              const std::string& fix) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status) || std::filesystem::is_regular_file(status) ||
        std::filesystem::is_directory(status))
        return;
    const char* kind =
        std::filesystem::is_fifo(status) ? "a FIFO"
        : std::filesystem::is_character_file(status) || std::filesystem::is_block_file(status)
            ? "a device"
        : std::filesystem::is_socket(status) ? "a socket"
                                             : "a special file";
    throw inputError(fmt::format("{} '{}' is {}, not a regular file; {}", what, path, kind, fix));
}

void requireParentDirectory(const std::string& path, const std::string& what,
                            const std::string& option) {
    requireRegularFileOrNone(path, option, "pass a file path with " + option);
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
        throw inputError(fmt::format(
            "cannot {} '{}': directory '{}' does not exist; create it or pass another {}", what,
            path, parent.string(), option));
    }
    if (std::filesystem::is_directory(path, ec)) {
        throw inputError(fmt::format("cannot {} '{}': it is a directory; pass a file path with {}",
                                     what, path, option));
    }
    // A new file, and SQLite's -wal and -shm files beside a database, need a writable directory.
    // Tried by creating (and removing) a file there: permission bits do not tell root about a
    // read-only mount or /proc.
    const std::string directory = directoryOf(path);
    std::string probe = directory + "/.glueprof-probe-XXXXXX";
    const int fd = ::mkstemp(probe.data());
    if (fd >= 0) {
        ::close(fd);
        ::unlink(probe.c_str());
    } else {
        throw inputError(fmt::format(
            "cannot {} '{}': directory '{}' is not writable; make it writable or pass another {}",
            what, path, directory, option));
    }
}

void requireOutputBesideDatabase(const std::string& path, const std::string& db,
                                 const std::string& option) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw inputError(fmt::format("{} '{}' is a directory; pass a file name", option, path));
    }
    // Checked now, before the work, with the database the command is about to open; every output
    // is checked again when written (writeFileAtomically).
    noteOpenedDatabase(db);
    refuseOutputOntoDatabase(path, option);
}

}  // namespace glueprof
