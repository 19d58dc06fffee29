#pragma once
// CompressedInput: a file read through zlib in large blocks, gzip'd or not (zlib passes plain
// files through), read a byte at a time (Peek, Take) or a block at a time in place (cursor,
// blockEnd, skipTo: JsonScanner): the JSON reader never holds more than a few blocks.
// A reader thread inflates the next blocks while the parser reads the current one (inflating is
// about a third of an import's read), so the two run on two cores. A Lookahead reads blocks
// ahead of the parser on a thread of its own (EventPrescan); the parser can then jump forward
// over what it read (seekForward).
#include <zlib.h>

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace glueprof {

class CompressedInput {
  public:
    using Ch = char;

    explicit CompressedInput(const std::string& path);  // input error when it cannot be opened
    ~CompressedInput();
    CompressedInput(const CompressedInput&) = delete;
    CompressedInput& operator=(const CompressedInput&) = delete;

    Ch Peek() const { return *m_current; }  // '\0' at the end
    Ch Take() {
        const Ch c = *m_current;
        advance();
        return c;
    }
    std::size_t Tell() const {
        return m_blockStart + static_cast<std::size_t>(m_current - m_block->bytes.data());
    }

    // The block being read, for a reader that scans it in place (JsonScanner): from cursor() to
    // blockEnd(), where a '\0' stands, then at least kPadding more readable bytes (a 16-byte load
    // at any position up to blockEnd() stays inside the buffer). The bytes stay valid until the
    // cursor leaves the block.
    static constexpr std::size_t kPadding = 16;
    const Ch* cursor() const { return m_current; }
    const Ch* blockEnd() const { return m_eof ? m_last : m_last + 1; }
    bool lastBlock() const { return m_eof; }
    // Moves the cursor to p (cursor() <= p <= blockEnd()); p at the end of a block that is not the
    // last goes on to the start of the next block (waiting for it).
    void skipTo(const Ch* p) {
        if (p > m_last && !m_eof) {
            refill();
        } else {
            m_current = p;
        }
    }
    // Moves the cursor forward to byte `offset` of the data (Tell() <= offset <= the data's end),
    // passing over the blocks before it.
    void seekForward(std::size_t offset);

    // A second cursor over the same blocks, for one other thread: it reads the blocks the parser
    // has not passed yet and those after them, and holds the block it reads from reuse, so the
    // parser finds the bytes still there. It waits for a block to be inflated, and gives up (as
    // if the data ended there) on a block that cannot be inflated before the parser moves on
    // (more than the ring's blocks ahead of it) while reading on, or once cancelLookahead() was
    // called.
    class Lookahead {
      public:
        explicit Lookahead(CompressedInput& input) : m_in(input) {}
        ~Lookahead() { release(); }
        Lookahead(const Lookahead&) = delete;
        Lookahead& operator=(const Lookahead&) = delete;

        // Moves to byte `offset`: false when the data ends before it, the parser is past its
        // block, or the lookahead gave up (then it holds no block).
        bool seek(std::size_t offset);
        // Keeps the block of byte `offset` from reuse, without waiting for it, when the parser
        // has not passed it: a seek there then succeeds however far the parser gets meanwhile.
        // False when the parser is past it (or the lookahead was cancelled).
        bool pin(std::size_t offset);
        // Whether the last seek or block found the data's end, or the lookahead was cancelled:
        // no later seek can succeed.
        bool finished() const { return m_finished; }
        // Whether reading on from the last seek stopped before the data's end: the next block was
        // out of reach (too far ahead of the parser) or the lookahead was cancelled. What was
        // read last may then be cut anywhere.
        bool cutShort() const { return m_cutShort; }
        // Holds no block (until the next seek).
        void release();

        Ch Peek() const { return *m_current; }
        std::size_t Tell() const {
            return m_blockStart + static_cast<std::size_t>(m_current - m_base);
        }
        const Ch* cursor() const { return m_current; }
        const Ch* blockEnd() const { return m_eof ? m_last : m_last + 1; }
        bool lastBlock() const { return m_eof; }
        void skipTo(const Ch* p) {
            if (p > m_last && !m_eof) {
                next();
            } else {
                m_current = p;
            }
        }
        void seekForward(std::size_t offset) {
            if (!seek(offset)) m_cutShort = true;
        }

      private:
        // Waits for block `index`; false: gave up. A block beyond the ring's reach from the
        // parser's is waited for (`waitForParser`: a seek) or given up at once (the next block
        // of a read: the parser may be waiting for that read).
        bool hold(std::size_t index, bool waitForParser);
        void next();
        void point(std::size_t index);
        void stopAt(std::size_t offset);  // no block: the data ends here for this cursor

        static const Ch kEmpty[kPadding + 1];
        CompressedInput& m_in;
        std::size_t m_index = 0;
        const Ch* m_base = kEmpty;  // the block's first byte
        const Ch* m_current = kEmpty;
        const Ch* m_last = kEmpty;
        std::size_t m_blockStart = 0;
        bool m_eof = true;
        bool m_finished = false;
        bool m_cutShort = false;
    };
    // Wakes and stops a Lookahead that waits, for good (before the thread that reads it joins).
    void cancelLookahead();

    // What zlib reported when the data stopped early or was corrupt ("unexpected end of file",
    // a CRC or data error); "" when the file read cleanly.
    const std::string& failure() const { return m_failure; }
    bool gzipped() const { return m_gzipped; }
    // Whether the data really ended here: Peek() gives '\0' at the end and at a NUL byte alike.
    bool atEnd() const { return m_eof && m_current == m_last; }
    // How far the parse is, in bytes of the file as it lies on disk (compressed or not): those read
    // to fill the blocks parsed so far, the current one included; and the file's size (0 when it
    // cannot be told). For a progress line.
    std::uint64_t fileBytesRead() const { return m_block != nullptr ? m_block->fileBytesRead : 0; }
    std::uint64_t fileBytes() const { return m_fileBytes; }

  private:
    // One inflated block: `size` bytes and a '\0' after them; `last` once the data ends (or
    // fails: `failure` says why).
    struct Block {
        std::vector<Ch> bytes;
        std::size_t size = 0;
        bool last = false;
        std::string failure;
        std::uint64_t fileBytesRead = 0;  // of the file, once this block was filled
    };
    // Enough for a Lookahead to read a few MiB ahead of the parser (EventPrescan's span).
    static constexpr std::size_t kBlocks = 16;
    static constexpr std::size_t kNoBlock = std::numeric_limits<std::size_t>::max();

    void advance() {
        if (m_current < m_last) {
            ++m_current;
        } else if (!m_eof) {
            refill();
        }
    }
    void refill();             // the parser: the next block, waiting for the reader
    void readBlocks();         // the reader thread: inflates into free blocks until the end
    void inflateInto(Block&);  // one gzread into a block

    std::string m_path;
    std::uint64_t m_fileBytes = 0;
    gzFile m_file = nullptr;
    std::array<Block, kBlocks> m_blocks;
    // Blocks are filled and read in ring order: the reader fills m_filled, the parser has read
    // m_taken; the reader may run at most kBlocks - 1 blocks ahead of the one being parsed.
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::size_t m_filled = 0;
    std::size_t m_taken = 0;
    std::size_t m_aheadHeld = kNoBlock;  // the block a Lookahead reads from
    std::size_t m_lastIndex = kNoBlock;  // the last block's index, once it is filled
    bool m_aheadCancelled = false;
    bool m_stop = false;
    bool m_gzipped = false;
    std::thread m_reader;

    Block* m_block = nullptr;  // the one being parsed
    const Ch* m_current = nullptr;
    const Ch* m_last = nullptr;
    std::size_t m_blockStart = 0;  // bytes before the current block
    bool m_eof = false;
    std::string m_failure;
};

}  // namespace glueprof
