#pragma once
// CompressedInput: a file read through zlib in large blocks, gzip'd or not (zlib passes plain
// files through), as a RapidJSON input stream: the JSON reader never holds more than one block.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace glueprof {

class CompressedInput {
  public:
    using Ch = char;  // RapidJSON's stream concept

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
        return m_blockStart + static_cast<std::size_t>(m_current - m_block.data());
    }
    // Writing is not part of an input stream (RapidJSON asks only in-situ parsing for it).
    Ch* PutBegin() { return nullptr; }
    void Put(Ch) {}
    void Flush() {}
    std::size_t PutEnd(Ch*) { return 0; }

    // What zlib reported when the data stopped early or was corrupt ("unexpected end of file",
    // a CRC or data error); "" when the file read cleanly.
    const std::string& failure() const { return m_failure; }
    bool gzipped() const { return m_gzipped; }
    // Whether the data really ended here: Peek() gives '\0' at the end and at a NUL byte alike.
    bool atEnd() const { return m_eof && m_current == m_last; }

  private:
    void advance() {
        if (m_current < m_last) {
            ++m_current;
        } else if (!m_eof) {
            refill();
        }
    }
    void refill();

    std::string m_path;
    gzFile m_file = nullptr;
    std::vector<Ch> m_block;
    Ch* m_current = nullptr;
    Ch* m_last = nullptr;
    std::size_t m_blockStart = 0;  // bytes before the current block
    std::size_t m_size = 0;        // bytes in the current block
    bool m_eof = false;
    bool m_gzipped = false;
    std::string m_failure;
};

}  // namespace glueprof
