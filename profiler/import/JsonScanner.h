#pragma once
// JsonScanner: a JSON SAX reader over CompressedInput's blocks, for a Handler with RapidJSON's
// handler concept (Null, Bool, RawNumber, String, Key, StartObject, EndObject, StartArray,
// EndArray; false from any stops the read). It reads what RapidJSON 1.1's reader reads with
// kParseNumbersAsStringsFlag | kParseNanAndInfFlag and reports the same error codes at the same
// bytes (a handler's stop at a string whose closing quote ends a block is reported one byte
// early, on the quote, where the block is still the current one), but scans a
// block in place: a string or number that lies inside one block reaches the handler as a pointer
// into it (no copy; a string is found 16 bytes at a time), and only a token with an escape or one
// that crosses into the next block is copied, a byte at a time, into a buffer bounded by the
// TokenBound. tests/profiler/import/JsonScannerTest.cpp holds it to RapidJSON's reader event for
// event.
#include <rapidjson/error/error.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "profiler/import/CompressedInput.h"
#include "profiler/import/JsonTokenBound.h"

namespace glueprof {

// Told of each array element before it is read (EventPrescan): the reader may read it, jump over
// elements another reader has read, or stop there.
class ArrayElementHook {
  public:
    static constexpr std::size_t kReadElement = 0;
    static constexpr std::size_t kStopHere = ~std::size_t{0};
    virtual ~ArrayElementHook() = default;
    // `offset`: the element's first byte. kReadElement, kStopHere, or the offset (past `offset`)
    // of the first byte of a later element of the same array, to go on from there.
    virtual std::size_t beforeElement(std::size_t offset) = 0;
};

template <class Handler, class Input = CompressedInput>
class JsonScanner {
  public:
    JsonScanner(Input& input, Handler& handler, TokenBound& bound)
        : m_in(input), m_handler(handler), m_bound(bound) {}

    void setHook(ArrayElementHook* hook) { m_hook = hook; }

    // The whole document: one value and nothing after it but whitespace. Throws OverlongToken
    // (m_bound.head holding its first bytes) for a token longer than the bound while it is read.
    rapidjson::ParseResult parse() {
        skipWhitespace();
        if (peek() == '\0') {
            fail(rapidjson::kParseErrorDocumentEmpty);
        } else if (value()) {
            skipWhitespace();
            if (peek() != '\0') fail(rapidjson::kParseErrorDocumentRootNotSingular);
        }
        return m_result;
    }

    // From the first byte of an element of an array whose '[' and StartArray lie before the input
    // (EventPrescan): elements until the hook stops the read (kParseErrorTermination), or an error.
    // The array's end is an error here (kParseErrorArrayMissCommaOrSquareBracket at the ']'): the
    // read was to stop inside the array.
    rapidjson::ParseResult elements() {
        arrayElements(false);
        return m_result;
    }

  private:
    using Code = rapidjson::ParseErrorCode;

    char peek() const { return *m_in.cursor(); }
    // Where a token that reached `p` stopped: the block's end, with more blocks to come.
    bool atBlockSeam(const char* p) const { return p == m_in.blockEnd() && !m_in.lastBlock(); }
    bool fail(Code code) {
        m_result.Set(code, m_in.Tell());
        return false;
    }
    bool stopped() { return fail(rapidjson::kParseErrorTermination); }
    static bool isWhitespace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
    static bool isDigit(char c) { return c >= '0' && c <= '9'; }

    void skipWhitespace() {
        if (!isWhitespace(peek())) return;  // the usual case: none
        for (;;) {
            const char* p = m_in.cursor();
            while (isWhitespace(*p)) ++p;
            const bool seam = atBlockSeam(p);
            m_in.skipTo(p);
            if (!seam) return;
        }
    }

    bool value() {
        switch (peek()) {
            case 'n':
                return literal("null", [&] { return m_handler.Null(); });
            case 't':
                return literal("true", [&] { return m_handler.Bool(true); });
            case 'f':
                return literal("false", [&] { return m_handler.Bool(false); });
            case '"':
                return string(false);
            case '{':
                return object();
            case '[':
                return array();
            default:
                return number();
        }
    }

    template <class Report>
    bool literal(const char* word, Report report) {
        for (const char* w = word; *w != '\0'; ++w) {
            if (peek() != *w) return fail(rapidjson::kParseErrorValueInvalid);
            take();
        }
        return report() || stopped();
    }

    // Past one byte, into the next block after a block's last (not past the end of the input).
    void take() {
        const char* p = m_in.cursor();
        if (p < m_in.blockEnd()) m_in.skipTo(p + 1);
    }

    bool object() {
        take();  // {
        if (!m_handler.StartObject()) return stopped();
        skipWhitespace();
        if (peek() == '}') {
            take();
            return m_handler.EndObject(0) || stopped();
        }
        for (rapidjson::SizeType members = 1;; ++members) {
            if (peek() != '"') return fail(rapidjson::kParseErrorObjectMissName);
            if (!string(true)) return false;
            skipWhitespace();
            if (peek() != ':') return fail(rapidjson::kParseErrorObjectMissColon);
            take();
            skipWhitespace();
            if (!value()) return false;
            skipWhitespace();
            if (peek() == ',') {
                take();
                skipWhitespace();
            } else if (peek() == '}') {
                take();
                return m_handler.EndObject(members) || stopped();
            } else {
                return fail(rapidjson::kParseErrorObjectMissCommaOrCurlyBracket);
            }
        }
    }

    bool array() {
        take();  // [
        if (!m_handler.StartArray()) return stopped();
        skipWhitespace();
        if (peek() == ']') {
            take();
            return m_handler.EndArray(0) || stopped();
        }
        return arrayElements(true);
    }

    // From an element's first byte to the array's ']' (`closes`; else the ']' is an error).
    bool arrayElements(bool closes) {
        for (rapidjson::SizeType elements = 1;; ++elements) {
            if (m_hook != nullptr) {
                const std::size_t next = m_hook->beforeElement(m_in.Tell());
                if (next == ArrayElementHook::kStopHere) return stopped();
                if (next != ArrayElementHook::kReadElement) {
                    m_in.seekForward(next);
                    continue;
                }
            }
            if (!value()) return false;
            skipWhitespace();
            if (peek() == ',') {
                take();
                skipWhitespace();
            } else if (peek() == ']' && closes) {
                take();
                return m_handler.EndArray(elements) || stopped();
            } else {
                return fail(rapidjson::kParseErrorArrayMissCommaOrSquareBracket);
            }
        }
    }

    bool report(bool key, const char* text, std::size_t length) {
        const auto n = static_cast<rapidjson::SizeType>(length);
        return (key ? m_handler.Key(text, n, true) : m_handler.String(text, n, true)) || stopped();
    }

    // The first '"', '\\' or control byte (the block's closing '\0' included) at or after p.
    static const char* stringStop(const char* p) {
#if defined(__SSE2__)
        const __m128i quote = _mm_set1_epi8('"');
        const __m128i backslash = _mm_set1_epi8('\\');
        const __m128i control = _mm_set1_epi8(0x1F);
        for (;; p += 16) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
            const __m128i stop =
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                             _mm_cmpeq_epi8(_mm_max_epu8(x, control), control));
            const int mask = _mm_movemask_epi8(stop);
            if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
        }
#else
        while (*p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
        return p;
#endif
    }

    bool string(bool key) {
        const char* start = m_in.cursor() + 1;  // after the opening quote
        const char* stop = stringStop(start);
        if (*stop == '"') {  // the whole string inside the block, unescaped: no copy
            const std::size_t length = static_cast<std::size_t>(stop - start);
            if (stop + 1 < m_in.blockEnd() || m_in.lastBlock()) {  // no next block to wait for
                m_in.skipTo(stop + 1);
                return report(key, start, length);
            }
            // The closing quote ends a block with more after it: report while the block is still
            // the current one.
            m_in.skipTo(stop);
            if (!report(key, start, length)) return false;
            take();
            return true;
        }
        m_token.clear();
        copyRun(start, stop);
        if (!copyString()) return false;
        return report(key, m_token.data(), m_token.size());
    }

    // The rest of a string, a byte at a time into m_token, escapes decoded (as RapidJSON: \uXXXX
    // to UTF-8, a surrogate pair to one code point), up to and past its closing quote.
    bool copyString() {
        for (;;) {
            const char c = peek();
            if (c == '"') {
                take();
                return true;
            }
            if (c == '\\') {
                const std::size_t escape = m_in.Tell();
                take();
                if (!escaped(escape)) return false;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                // The cursor never rests on a block's seam (skipTo moves on), so a '\0' here is
                // the input's end or a NUL byte in it. A raw control byte: RapidJSON 1.1 (Debian's)
                // calls it an invalid escape.
                return fail(c == '\0' ? rapidjson::kParseErrorStringMissQuotationMark
                                      : rapidjson::kParseErrorStringEscapeInvalid);
            } else {
                const char* p = m_in.cursor();
                copyRun(p, stringStop(p));
                continue;
            }
            checkBound();
        }
    }

    bool escaped(std::size_t escapeOffset) {
        static constexpr char kEscapes[] = "\"\\/bfnrt";
        static constexpr char kDecoded[] = "\"\\/\b\f\n\r\t";
        const char c = peek();
        const char* simple = c != '\0' ? std::strchr(kEscapes, c) : nullptr;
        if (simple != nullptr) {
            m_token.push_back(kDecoded[simple - kEscapes]);
            take();
            return true;
        }
        if (c != 'u') return failAt(rapidjson::kParseErrorStringEscapeInvalid, escapeOffset);
        take();
        unsigned codepoint = 0;
        if (!hex4(codepoint, escapeOffset)) return false;
        if (codepoint >= 0xD800 && codepoint <= 0xDBFF) {
            if (peek() != '\\')
                return failAt(rapidjson::kParseErrorStringUnicodeSurrogateInvalid, escapeOffset);
            take();
            if (peek() != 'u')
                return failAt(rapidjson::kParseErrorStringUnicodeSurrogateInvalid, escapeOffset);
            take();
            unsigned low = 0;
            if (!hex4(low, escapeOffset)) return false;
            if (low < 0xDC00 || low > 0xDFFF)
                return failAt(rapidjson::kParseErrorStringUnicodeSurrogateInvalid, escapeOffset);
            codepoint = (((codepoint - 0xD800) << 10) | (low - 0xDC00)) + 0x10000;
        }
        appendUtf8(codepoint);
        return true;
    }

    bool failAt(Code code, std::size_t offset) {
        m_result.Set(code, offset);
        return false;
    }

    bool hex4(unsigned& out, std::size_t escapeOffset) {
        for (int i = 0; i < 4; ++i) {
            const char c = peek();
            unsigned digit = 0;
            if (c >= '0' && c <= '9') {
                digit = static_cast<unsigned>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                digit = static_cast<unsigned>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                digit = static_cast<unsigned>(c - 'A' + 10);
            } else {
                return failAt(rapidjson::kParseErrorStringUnicodeEscapeInvalidHex, escapeOffset);
            }
            out = out * 16 + digit;
            take();
        }
        return true;
    }

    void appendUtf8(unsigned cp) {
        if (cp < 0x80) {
            m_token.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            m_token.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            m_token.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            m_token.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            m_token.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            m_token.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            m_token.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            m_token.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            m_token.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            m_token.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }

    // Copies the block's bytes [p, stop) into m_token and moves past them, but no more than one
    // byte past the bound: a longer token is refused there, not after it was held whole.
    void copyRun(const char* p, const char* stop) {
        const std::size_t room = m_bound.bytes + 1 - std::min(m_token.size(), m_bound.bytes + 1);
        const auto n = std::min(static_cast<std::size_t>(stop - p), room);
        m_token.append(p, n);
        m_in.skipTo(p + n);
        checkBound();
    }

    // A token held for the handler may not grow past the bound the handler set for it.
    void checkBound() {
        if (m_token.size() <= m_bound.bytes) return;
        m_bound.head = m_token.substr(0, kShownBytes);
        throw OverlongToken{};
    }

    // A number's bytes, by JSON's grammar (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, or
    // NaN, Inf, Infinity after an optional minus, which a fraction and exponent may follow, as in
    // RapidJSON), read from a cursor that either scans the block in place or copies across blocks.
    // Refused as too big where RapidJSON 1.1's reader refuses it (its value, which it computes
    // even when it hands over the text: an integer part past DBL_MAX, an exponent past 308 plus
    // the fraction's digits), with that reader's arithmetic.
    struct InBlock {
        const char* p;
        char peek() const { return *p; }
        void take() { ++p; }
    };
    struct Copying {
        JsonScanner& s;
        char peek() const { return s.peek(); }
        void take() {
            s.m_token.push_back(s.peek());
            s.checkBound();
            s.take();
        }
    };
    template <class Cursor>
    static unsigned digit(Cursor& c) {
        const auto d = static_cast<unsigned>(c.peek() - '0');
        c.take();
        return d;
    }
    template <class Cursor>
    static Code numberBytes(Cursor& c) {
        const bool minus = c.peek() == '-';
        if (minus) c.take();
        unsigned i = 0;
        std::uint64_t i64 = 0;
        bool use64bit = false;
        bool useDouble = false;
        double d = 0.0;
        int significandDigits = 0;
        if (c.peek() == '0') {
            c.take();
        } else if (c.peek() >= '1' && c.peek() <= '9') {
            i = digit(c);
            const unsigned limit = minus ? 214748364u : 429496729u;
            const char last = minus ? '8' : '5';
            while (isDigit(c.peek())) {
                if (i >= limit && (i != limit || c.peek() > last)) {
                    i64 = i;
                    use64bit = true;
                    break;
                }
                i = i * 10 + digit(c);
                ++significandDigits;
            }
        } else if (c.peek() == 'N' || c.peek() == 'I') {
            if (nonFinite(c) != rapidjson::kParseErrorNone)
                return rapidjson::kParseErrorValueInvalid;
        } else {
            return rapidjson::kParseErrorValueInvalid;
        }
        if (use64bit) {
            const std::uint64_t limit =
                minus ? std::uint64_t{0x0CCCCCCCCCCCCCCC} : std::uint64_t{0x1999999999999999};
            const char last = minus ? '8' : '5';
            while (isDigit(c.peek())) {
                if (i64 >= limit && (i64 != limit || c.peek() > last)) {
                    d = static_cast<double>(i64);
                    useDouble = true;
                    break;
                }
                i64 = i64 * 10 + digit(c);
                ++significandDigits;
            }
        }
        if (useDouble) {
            while (isDigit(c.peek())) {
                if (d >= 1.7976931348623157e307) return rapidjson::kParseErrorNumberTooBig;
                d = d * 10 + digit(c);
            }
        }
        int fractionExponent = 0;
        if (c.peek() == '.') {
            c.take();
            if (!isDigit(c.peek())) return rapidjson::kParseErrorNumberMissFraction;
            if (!useDouble) {
                if (!use64bit) i64 = i;
                while (isDigit(c.peek()) && i64 <= std::uint64_t{0x1FFFFFFFFFFFFF}) {
                    i64 = i64 * 10 + digit(c);
                    --fractionExponent;
                    if (i64 != 0) ++significandDigits;
                }
                d = static_cast<double>(i64);
                useDouble = true;
            }
            while (isDigit(c.peek())) {
                if (significandDigits < 17) {
                    d = d * 10.0 + digit(c);
                    --fractionExponent;
                    if (d > 0.0) ++significandDigits;
                } else {
                    c.take();
                }
            }
        }
        if (c.peek() == 'e' || c.peek() == 'E') {
            c.take();
            bool exponentMinus = false;
            if (c.peek() == '+') {
                c.take();
            } else if (c.peek() == '-') {
                c.take();
                exponentMinus = true;
            }
            if (!isDigit(c.peek())) return rapidjson::kParseErrorNumberMissExponent;
            int exponent = static_cast<int>(digit(c));
            if (exponentMinus) {
                while (isDigit(c.peek())) {
                    exponent = exponent * 10 + static_cast<int>(digit(c));
                    if (exponent >= 214748364) {
                        while (isDigit(c.peek())) c.take();
                    }
                }
            } else {
                const int maxExponent = 308 - fractionExponent;
                while (isDigit(c.peek())) {
                    exponent = exponent * 10 + static_cast<int>(digit(c));
                    if (exponent > maxExponent) return rapidjson::kParseErrorNumberTooBig;
                }
            }
        }
        return rapidjson::kParseErrorNone;
    }
    template <class Cursor>
    static Code nonFinite(Cursor& c) {
        const char* word = c.peek() == 'N' ? "NaN" : "Inf";
        for (const char* w = word; *w != '\0'; ++w) {
            if (c.peek() != *w) return rapidjson::kParseErrorValueInvalid;
            c.take();
        }
        if (word[0] == 'I' && c.peek() == 'i') {
            for (const char* w = "inity"; *w != '\0'; ++w) {
                if (c.peek() != *w) return rapidjson::kParseErrorValueInvalid;
                c.take();
            }
        }
        return rapidjson::kParseErrorNone;
    }

    bool number() {
        const char* start = m_in.cursor();
        const std::size_t startOffset = m_in.Tell();
        InBlock scan{start};
        Code code = numberBytes(scan);
        if (!atBlockSeam(scan.p)) {  // it ended inside the block: no copy
            m_in.skipTo(scan.p);
            if (code != rapidjson::kParseErrorNone) return failNumber(code, startOffset);
            // Still in this block (or at the last block's end): the bytes stay where they are.
            return m_handler.RawNumber(start, static_cast<rapidjson::SizeType>(scan.p - start),
                                       true) ||
                   failAt(rapidjson::kParseErrorTermination, startOffset);
        }
        m_token.clear();  // it runs on into the next block: read it again, copying
        Copying copy{*this};
        code = numberBytes(copy);
        if (code != rapidjson::kParseErrorNone) return failNumber(code, startOffset);
        return m_handler.RawNumber(m_token.data(), static_cast<rapidjson::SizeType>(m_token.size()),
                                   true) ||
               failAt(rapidjson::kParseErrorTermination, startOffset);
    }
    // RapidJSON reports a number too big at its start, the other mistakes where they are.
    bool failNumber(Code code, std::size_t startOffset) {
        return code == rapidjson::kParseErrorNumberTooBig ? failAt(code, startOffset) : fail(code);
    }

    Input& m_in;
    Handler& m_handler;
    TokenBound& m_bound;
    std::string m_token;  // a token copied across blocks or unescaped
    rapidjson::ParseResult m_result;
    ArrayElementHook* m_hook = nullptr;
};

}  // namespace glueprof
