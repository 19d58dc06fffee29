#include "app/report/AtomicFile.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <streambuf>
#include <vector>

#include "profiler/core/Error.h"
#include "profiler/core/Interruption.h"
#include "profiler/core/OpenedDatabases.h"
#include "profiler/core/OutputPath.h"

namespace glueprof {

namespace {

// Thrown through the stream when a SIGINT/SIGTERM was noted during the write.
struct WriteInterrupted {};

// An output stream buffer over a file descriptor that looks for a noted SIGINT/SIGTERM each time it
// empties its buffer (every 256 KiB), so a long export stops within a moment of Ctrl-C.
class InterruptibleFileBuffer : public std::streambuf {
  public:
    explicit InterruptibleFileBuffer(int fd) : m_fd(fd), m_buffer(256 << 10) {
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    }
    int writeError() const { return m_error; }

  protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

  private:
    bool drain() {
        if (pendingInterruption() != 0) throw WriteInterrupted{};
        const char* data = pbase();
        std::size_t left = static_cast<std::size_t>(pptr() - pbase());
        while (left > 0) {
            const ssize_t written = ::write(m_fd, data, left);
            if (written < 0) {
                if (errno == EINTR) {
                    if (pendingInterruption() != 0) throw WriteInterrupted{};
                    continue;
                }
                m_error = errno;
                return false;
            }
            data += written;
            left -= static_cast<std::size_t>(written);
        }
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
        return true;
    }

    int m_fd;
    std::vector<char> m_buffer;
    int m_error = 0;
};

// The mode a new file gets from open(2): 0666 less the umask; an existing file keeps its own.
mode_t modeFor(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 07777;
    // umask(2) can only be read by setting it: done once (a thread-safe static), not per write,
    // so no other thread's file is ever created under a zero umask after the first output.
    static const mode_t kMask = [] {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        return mask;
    }();
    return 0666 & ~kMask;
}

[[noreturn]] void throwInterrupted(const std::string& path) {
    const int signal = pendingInterruption();
    throw GlueprofError(static_cast<ExitCode>(static_cast<int>(ExitCode::kSignalBase) + signal),
                        fmt::format("interrupted by {} while writing '{}': nothing was written",
                                    signal == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM", path));
}

// An existing SQLite file at PATH (another process's trace database, say) is never replaced by an
// output: whoever writes it would go on writing into a file that no longer has a name.
void refuseReplacingADatabase(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char header[16] = {};
    if (!in.read(header, sizeof header)) return;
    if (std::string(header, sizeof header) != std::string("SQLite format 3\0", 16)) return;
    throw inputError(fmt::format(
        "output file '{}' is an SQLite database; glueprof never replaces one with an output: "
        "choose another path, or remove it first",
        path));
}

// Removes the temporary unless it was renamed into place.
struct Temporary {
    std::string path;
    int fd = -1;
    bool renamed = false;
    ~Temporary() {
        if (fd >= 0) ::close(fd);
        if (!renamed && !path.empty()) ::unlink(path.c_str());
    }
};

}  // namespace

void writeFileAtomically(const std::string& path, const std::string& contents) {
    writeFileAtomically(path, [&](std::ostream& out) { out << contents; });
}

void requireReplaceableOutput(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw inputError(
            fmt::format("cannot write '{}': it is a directory; choose a file path", path));
    }
    requireRegularFileOrNone(path, "output file", "choose a file path");
    refuseOutputOntoDatabase(path);
    refuseReplacingADatabase(path);
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    requireReplaceableOutput(path);
    const InterruptionScope interruptible;  // Ctrl-C: the temporary goes, exit 130
    const std::string name = std::filesystem::path(path).filename().string();
    Temporary temporary;
    temporary.path = fmt::format("{}/.{}.glueprof-XXXXXX", directoryOf(path), name);
    temporary.fd = ::mkostemp(temporary.path.data(), O_CLOEXEC);
    if (temporary.fd < 0) {
        const int error = errno;
        temporary.path.clear();
        throw inputError(fmt::format(
            "cannot write '{}': {} in directory '{}'; check the directory exists and is writable, "
            "or choose another path",
            path, std::strerror(error), directoryOf(path)));
    }
    ::fchmod(temporary.fd, modeFor(path));
    InterruptibleFileBuffer buffer(temporary.fd);
    {
        std::ostream out(&buffer);
        out.exceptions(std::ios::badbit);  // rethrows what the buffer throws (an interruption)
        try {
            write(out);
            out.flush();
        } catch (const WriteInterrupted&) {
            throwInterrupted(path);
        } catch (const std::ios_base::failure&) {
            // A write(2) failure: reported below with its errno.
        }
        if (buffer.writeError() != 0 || !out) {
            throw inputError(fmt::format(
                "writing '{}' failed ({}); nothing was written", path,
                buffer.writeError() != 0 ? std::strerror(buffer.writeError()) : "stream error"));
        }
    }
    if (::close(temporary.fd) != 0) {
        temporary.fd = -1;
        throw inputError(fmt::format("writing '{}' failed ({}); nothing was written", path,
                                     std::strerror(errno)));
    }
    temporary.fd = -1;
    if (pendingInterruption() != 0) throwInterrupted(path);
    if (::rename(temporary.path.c_str(), path.c_str()) != 0) {
        throw inputError(
            fmt::format("cannot move the finished file to '{}': {}", path, std::strerror(errno)));
    }
    temporary.renamed = true;
}

}  // namespace glueprof
