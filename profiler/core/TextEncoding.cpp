#include "profiler/core/TextEncoding.h"

#include <fmt/format.h>

namespace glueprof {

std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const auto continuation = [&](std::size_t k) {
        return k < text.size() && (byte(k) & 0xC0) == 0x80;
    };
    const unsigned char c = byte(i);
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return continuation(i + 1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (!continuation(i + 1) || !continuation(i + 2)) return 0;
        const unsigned char c1 = byte(i + 1);
        const bool overlong = c == 0xE0 && c1 < 0xA0;
        const bool surrogate = c == 0xED && c1 >= 0xA0;
        return overlong || surrogate ? 0 : 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (!continuation(i + 1) || !continuation(i + 2) || !continuation(i + 3)) return 0;
        const unsigned char c1 = byte(i + 1);
        const bool overlong = c == 0xF0 && c1 < 0x90;
        const bool tooLarge = c == 0xF4 && c1 >= 0x90;
        return overlong || tooLarge ? 0 : 4;
    }
    return 0;
}

std::int64_t firstInvalidUtf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8SequenceLength(text, i);
        if (length == 0) return static_cast<std::int64_t>(i);
        i += length;
    }
    return -1;
}

std::string validUtf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;
    if (i == text.size()) return std::string(text);  // ASCII: the common case
    std::string out(text.substr(0, i));
    while (i < text.size()) {
        const std::size_t length = utf8SequenceLength(text, i);
        if (length == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD
            ++i;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out;
}

std::string printableText(std::string_view text) {
    std::string out = validUtf8(text);
    for (char& c : out) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
    }
    return out;
}

std::string jsonStringLiteral(std::string_view text) {
    std::string out = "\"";
    for (char c : validUtf8(text)) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

std::string shortenedText(std::string_view text, std::size_t maxBytes) {
    if (text.size() <= maxBytes) return std::string(text);
    std::size_t cut = maxBytes;
    // Back up over continuation bytes (10xxxxxx) to the start of the sequence being cut.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return std::string(text.substr(0, cut)) + "...";
}

}  // namespace glueprof
