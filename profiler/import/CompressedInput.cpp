#include "profiler/import/CompressedInput.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "profiler/core/Error.h"

namespace glueprof {

namespace {
constexpr std::size_t kBlockBytes = 1u << 20;
}

CompressedInput::CompressedInput(const std::string& path) : m_path(path), m_block(kBlockBytes + 1) {
    m_file = gzopen(path.c_str(), "rb");
    if (m_file == nullptr) {
        throw inputError(fmt::format("cannot read '{}': {}; check the path and its permissions",
                                     path, std::strerror(errno)));
    }
    gzbuffer(m_file, 1u << 18);
    // Before the first block, Peek() sees the end of an empty stream.
    m_block[0] = '\0';
    m_current = m_last = m_block.data();
    refill();
    m_gzipped = gzdirect(m_file) == 0;
}

CompressedInput::~CompressedInput() {
    if (m_file != nullptr) gzclose(m_file);
}

void CompressedInput::refill() {
    m_blockStart += m_size;
    const int read = gzread(m_file, m_block.data(), static_cast<unsigned>(kBlockBytes));
    int code = Z_OK;
    const char* message = gzerror(m_file, &code);
    if (read < 0 || (code != Z_OK && code != Z_STREAM_END)) {
        std::string what = message != nullptr ? message : "zlib read error";
        // zlib puts the file's name before its message; the caller names the file already.
        if (what.rfind(m_path + ": ", 0) == 0) what = what.substr(m_path.size() + 2);
        m_failure = code == Z_BUF_ERROR ? "the compressed data ends early (truncated gzip)"
                                        : "corrupt gzip data (" + what + ")";
    }
    const std::size_t got = read > 0 ? static_cast<std::size_t>(read) : 0;
    m_size = got;
    m_current = m_block.data();
    if (got < kBlockBytes) {
        m_block[got] = '\0';
        m_last = m_block.data() + got;
        m_eof = true;
    } else {
        m_last = m_block.data() + got - 1;
    }
}

}  // namespace glueprof
