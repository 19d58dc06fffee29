#pragma once
// A real-text corpus for --data FILE: UTF-8 text, documents separated by blank lines, or JSONL
// with one object per line whose "text" field is a document (.jsonl / .json extension). Tokens
// are bytes (0..255), so any preset with a vocabulary of at least 256 can train on it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace glueprof {

class TextCorpus {
  public:
    // Throws an input error naming the file and what is wrong (missing, not UTF-8 with the first
    // bad byte's offset, larger than kMaxBytes, a JSONL line without a text field, no documents).
    // The file is read a MiB at a time: a device (/dev/urandom) stops at its first bad byte.
    static TextCorpus load(const std::string& path);
    static constexpr std::size_t kMaxBytes = std::size_t{256} << 20;

    const std::vector<std::string>& documents() const { return m_documents; }
    std::int64_t bytes() const { return m_bytes; }

  private:
    std::vector<std::string> m_documents;
    std::int64_t m_bytes = 0;
};

}  // namespace glueprof
