#include "profiler/import/CompressedInput.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "profiler/core/Error.h"

namespace glueprof {

namespace {
constexpr std::size_t kBlockBytes = 1u << 20;
}

CompressedInput::CompressedInput(const std::string& path) : m_path(path) {
    m_file = gzopen(path.c_str(), "rb");
    if (m_file == nullptr) {
        throw inputError(fmt::format("cannot read '{}': {}; check the path and its permissions",
                                     path, std::strerror(errno)));
    }
    std::error_code sizeError;
    const std::uintmax_t size = std::filesystem::file_size(path, sizeError);
    m_fileBytes = sizeError ? 0 : static_cast<std::uint64_t>(size);
    try {
        gzbuffer(m_file, 1u << 18);
        for (Block& block : m_blocks) block.bytes.resize(kBlockBytes + 1 + kPadding);
        // The first block is read here, so gzipped() is known before the parser starts.
        inflateInto(m_blocks[0]);
        m_gzipped = gzdirect(m_file) == 0;
        m_filled = 1;
        if (!m_blocks[0].last) m_reader = std::thread([this] { readBlocks(); });
    } catch (...) {  // no memory or no thread: the destructor does not run, close the file here
        gzclose(m_file);
        throw;
    }
    refill();  // the first block is filled: no wait, no throw
}

CompressedInput::~CompressedInput() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    if (m_reader.joinable()) m_reader.join();
    if (m_file != nullptr) gzclose(m_file);
}

void CompressedInput::inflateInto(Block& block) {
    const int read = gzread(m_file, block.bytes.data(), static_cast<unsigned>(kBlockBytes));
    int code = Z_OK;
    const char* message = gzerror(m_file, &code);
    block.failure.clear();
    if (read < 0 || (code != Z_OK && code != Z_STREAM_END)) {
        std::string what = message != nullptr ? message : "zlib read error";
        // zlib puts the file's name before its message; the caller names the file already.
        if (what.rfind(m_path + ": ", 0) == 0) what = what.substr(m_path.size() + 2);
        block.failure = code == Z_BUF_ERROR ? "the compressed data ends early (truncated gzip)"
                                            : "corrupt gzip data (" + what + ")";
    }
    block.size = read > 0 ? static_cast<std::size_t>(read) : 0;
    block.bytes[block.size] = '\0';
    block.last = block.size < kBlockBytes || !block.failure.empty();
    const z_off_t offset = gzoffset(m_file);  // zlib's own read-ahead included: a progress figure
    block.fileBytesRead = offset > 0 ? static_cast<std::uint64_t>(offset) : 0;
    if (block.last || (m_fileBytes > 0 && block.fileBytesRead > m_fileBytes))
        block.fileBytesRead = m_fileBytes;
}

void CompressedInput::readBlocks() {
    for (;;) {
        std::size_t next = 0;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            // The block to fill is not the one being parsed (m_taken) nor one waiting for it.
            m_changed.wait(lock, [&] { return m_stop || m_filled - m_taken < kBlocks; });
            if (m_stop) return;
            next = m_filled;
        }
        Block& block = m_blocks[next % kBlocks];
        inflateInto(block);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            ++m_filled;
        }
        m_changed.notify_all();
        if (block.last) return;
    }
}

void CompressedInput::refill() {
    if (m_block != nullptr) m_blockStart += m_block->size;
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        if (m_block != nullptr) ++m_taken;  // the reader may fill the block just parsed
        m_changed.wait(lock, [&] { return m_filled > m_taken; });
    }
    m_changed.notify_all();
    m_block = &m_blocks[m_taken % kBlocks];
    if (!m_block->failure.empty()) m_failure = m_block->failure;
    m_current = m_block->bytes.data();
    if (m_block->last) {
        m_last = m_current + m_block->size;
        m_eof = true;
    } else {
        m_last = m_current + m_block->size - 1;
    }
}

}  // namespace glueprof
