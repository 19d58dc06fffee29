#pragma once
// The bound on what the JSON reader (JsonScanner) copies of one token (a string, key or number)
// before its handler sees it: a hostile name (1 GiB from a 1 MB gzip) is refused while it is read,
// never held and copied whole (docs/import.md §8, "Length").
#include <cstddef>
#include <string>

namespace glueprof {

// The longest name or other field glueprof reads from an event (name, cat, ph, pid, tid, ts, dur,
// id, the args it maps, a device's fields): a trace with a longer one is refused (docs/import.md
// §8). The longest demangled kernel names are a few KiB; the bound keeps one hostile name (1 GiB
// from a 1 MB gzip) from being held and copied whole.
constexpr std::size_t kMaxTraceNameBytes = std::size_t{64} << 10;
// The longest JSON string, key or number read at all, fields glueprof ignores included: the reader
// may hold each one whole before the handler sees it.
constexpr std::size_t kMaxJsonTokenBytes = std::size_t{64} << 20;

// How long the JSON token being read may be, shared by the handler (which knows what the next
// value is) and the reader (which may copy it whole before the handler sees it):
// kMaxTraceNameBytes for the value of a field glueprof reads, kMaxJsonTokenBytes otherwise.
struct TokenBound {
    std::size_t bytes = kMaxJsonTokenBytes;
    std::string head;  // the first bytes of a token the reader refused, for the message
};
constexpr std::size_t kShownBytes = 32;  // of a refused token, quoted in the message

// Thrown by JsonScanner for a token it copies past the bound (TokenBound::head holds its first
// bytes), caught around JsonScanner::parse.
struct OverlongToken {};

}  // namespace glueprof
