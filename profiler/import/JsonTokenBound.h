#pragma once
// The bound on what RapidJSON's reader holds of one token (a string, key or number) before its
// handler sees it: a hostile name (1 GiB from a 1 MB gzip) is refused while it is read, never held
// and copied whole (docs/import.md §8, "Length").
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <string>

namespace glueprof {

// The longest name or other field glueprof reads from an event (name, cat, ph, pid, tid, ts, dur,
// id, the args it maps, a device's fields): a trace with a longer one is refused (docs/import.md
// §8). The longest demangled kernel names are a few KiB; the bound keeps one hostile name (1 GiB
// from a 1 MB gzip) from being held and copied whole.
constexpr std::size_t kMaxTraceNameBytes = std::size_t{64} << 10;
// The longest JSON string, key or number read at all, fields glueprof ignores included: RapidJSON
// holds each one whole before the handler sees it.
constexpr std::size_t kMaxJsonTokenBytes = std::size_t{64} << 20;

// How long the JSON token being read may be, shared by the handler (which knows what the next
// value is) and the reader's stack (which holds it whole before the handler sees it):
// kMaxTraceNameBytes for the value of a field glueprof reads, kMaxJsonTokenBytes otherwise.
struct TokenBound {
    std::size_t bytes = kMaxJsonTokenBytes;
    std::string head;  // the first bytes of a token the stack refused, for the message
};
constexpr std::size_t kShownBytes = 32;  // of a refused token, quoted in the message

struct OverlongToken {};  // thrown by BoundedStackAllocator, caught around Reader::Parse

// RapidJSON's StackAllocator concept (CrtAllocator's, plus a bound). The reader's stack holds
// one token at a time and takes it a byte at a time, so it is full when it grows: a stack that
// already holds more than the bound is refused instead of grown by half again. The refusal
// unwinds through the reader, which holds nothing but that stack (freed by its destructor). The
// bound is only what keeps memory small: the handler checks each token's exact length.
class BoundedStackAllocator {
  public:
    static const bool kNeedFree = true;
    BoundedStackAllocator() = default;  // RapidJSON's fallback when none is given (unbounded)
    explicit BoundedStackAllocator(TokenBound* bound) : m_bound(bound) {}
    void* Malloc(std::size_t size) {
        if (size == 0) return nullptr;
        void* block = std::malloc(size);
        if (block == nullptr) throw std::bad_alloc();
        return block;
    }
    void* Realloc(void* original, std::size_t originalSize, std::size_t newSize) {
        if (newSize == 0) {
            std::free(original);
            return nullptr;
        }
        if (m_bound != nullptr && original != nullptr && newSize > originalSize &&
            originalSize > m_bound->bytes) {
            m_bound->head.assign(static_cast<const char*>(original),
                                 std::min(originalSize, kShownBytes));
            throw OverlongToken{};
        }
        void* block = std::realloc(original, newSize);
        if (block == nullptr) throw std::bad_alloc();
        return block;
    }
    static void Free(void* block) { std::free(block); }

  private:
    TokenBound* m_bound = nullptr;
};

}  // namespace glueprof
