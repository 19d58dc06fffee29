#include "profiler/core/WriterDirectoryLock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <thread>

#include "profiler/core/OutputPath.h"

namespace glueprof {

WriterDirectoryLock::WriterDirectoryLock(const std::string& databasePath) {
    // The directory the file really is in (SQLite follows a symlink to it, and puts its -wal and
    // -shm there).
    std::error_code ec;
    const std::filesystem::path real = std::filesystem::weakly_canonical(databasePath, ec);
    const std::string directory = directoryOf(ec ? databasePath : real.string());
    m_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (m_fd < 0) return;
    // A remover holds the exclusive lock for a moment; something else holding it longer (a
    // wrapper's `flock -x DIR`) must not hang the writer: past kWaitLimit it goes on without the
    // lock (and so never removes a file itself).
    const auto deadline = std::chrono::steady_clock::now() + kWaitLimit;
    while (!(m_held = ::flock(m_fd, LOCK_SH | LOCK_NB) == 0)) {
        if (errno != EWOULDBLOCK && errno != EINTR) return;
        if (std::chrono::steady_clock::now() >= deadline) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

WriterDirectoryLock::~WriterDirectoryLock() { release(); }

void WriterDirectoryLock::release() {
    if (m_fd >= 0) ::close(m_fd);  // releases the lock
    m_fd = -1;
    m_held = false;
}

bool WriterDirectoryLock::tryExclusive() {
    if (!m_held) return false;
    if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0) return true;
    // A failed conversion may have dropped the shared lock: take it back.
    m_held = ::flock(m_fd, LOCK_SH) == 0;
    return false;
}

}  // namespace glueprof
