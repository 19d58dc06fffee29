#include "profiler/import/CompressedInput.h"

#include <fmt/format.h>

#include <algorithm>
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
        if (m_blocks[0].last) m_lastIndex = 0;
        if (!m_blocks[0].last) m_reader = std::thread([this] { readBlocks(); });
    } catch (...) {  // no memory or no thread: the destructor does not run, close the file here
        gzclose(m_file);
        throw;
    }
    refill();  // the first block is filled: no wait, no throw
}

void CompressedInput::seekForward(std::size_t offset) {
    while (!m_eof && offset >= m_blockStart + m_block->size) refill();
    m_current = m_block->bytes.data() + std::min(offset - m_blockStart, m_block->size);
}

void CompressedInput::cancelLookahead() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_aheadCancelled = true;
    }
    m_changed.notify_all();
}

const CompressedInput::Ch CompressedInput::Lookahead::kEmpty[kPadding + 1] = {};

bool CompressedInput::Lookahead::hold(std::size_t index, bool waitForParser) {
    CompressedInput& in = m_in;
    bool held = false;
    {
        std::unique_lock<std::mutex> lock(in.m_mutex);
        // A block before the parser's may be refilled already, unless this cursor holds one at
        // or before it.
        const std::size_t kept = std::min(in.m_taken, in.m_aheadHeld);
        if (index >= kept && !in.m_aheadCancelled) {
            in.m_aheadHeld = index;
            in.m_changed.notify_all();  // the reader may fill further now
            in.m_changed.wait(lock, [&] {
                return in.m_filled > index || in.m_stop || in.m_aheadCancelled ||
                       (in.m_lastIndex != kNoBlock && index > in.m_lastIndex) ||
                       (!waitForParser && index >= in.m_taken + kBlocks);
            });
            held = in.m_filled > index && !in.m_stop && !in.m_aheadCancelled;
        }
        m_finished = in.m_stop || in.m_aheadCancelled ||
                     (in.m_lastIndex != kNoBlock && index > in.m_lastIndex);
        if (!held) in.m_aheadHeld = kNoBlock;
    }
    if (!held) in.m_changed.notify_all();
    return held;
}

void CompressedInput::Lookahead::point(std::size_t index) {
    const Block& block = m_in.m_blocks[index % kBlocks];
    m_index = index;
    m_blockStart = index * kBlockBytes;
    m_base = m_current = block.bytes.data();
    m_eof = block.last;
    m_last = m_base + (block.last ? block.size : block.size - 1);
}

void CompressedInput::Lookahead::stopAt(std::size_t offset) {
    m_blockStart = offset;
    m_base = m_current = m_last = kEmpty;
    m_eof = true;
}

void CompressedInput::Lookahead::next() {
    const std::size_t end = m_blockStart + static_cast<std::size_t>(m_last + 1 - m_base);
    if (hold(m_index + 1, false)) {
        point(m_index + 1);
    } else {  // not the data's end: this block was not the last
        m_cutShort = true;
        stopAt(end);
    }
}

bool CompressedInput::Lookahead::pin(std::size_t offset) {
    const std::size_t index = offset / kBlockBytes;
    bool pinned = false;
    {
        std::lock_guard<std::mutex> lock(m_in.m_mutex);
        if (index >= std::min(m_in.m_taken, m_in.m_aheadHeld) && !m_in.m_aheadCancelled) {
            m_in.m_aheadHeld = index;
            pinned = true;
        }
    }
    m_in.m_changed.notify_all();  // the block held before, if any, is free
    return pinned;
}

bool CompressedInput::Lookahead::seek(std::size_t offset) {
    m_cutShort = false;
    const std::size_t index = offset / kBlockBytes;
    if (!hold(index, true)) {
        stopAt(offset);
        return false;
    }
    point(index);
    const std::size_t size = static_cast<std::size_t>(m_last - m_base) + (m_eof ? 0 : 1);
    if (offset - m_blockStart > size) {  // past the data's end
        release();
        stopAt(offset);
        m_finished = true;
        return false;
    }
    m_current = m_base + (offset - m_blockStart);
    return true;
}

void CompressedInput::Lookahead::release() {
    {
        std::lock_guard<std::mutex> lock(m_in.m_mutex);
        m_in.m_aheadHeld = kNoBlock;
    }
    m_in.m_changed.notify_all();
    stopAt(Tell());
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
            // Nor one a Lookahead reads, nor one after it that the parser has not read.
            m_changed.wait(lock, [&] {
                return m_stop || m_filled - std::min(m_taken, m_aheadHeld) < kBlocks;
            });
            if (m_stop) return;
            next = m_filled;
        }
        Block& block = m_blocks[next % kBlocks];
        inflateInto(block);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (block.last) m_lastIndex = m_filled;
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
