#pragma once
// Text that crosses into glueprof from outside (trace names, labels, corpus files) and out of it
// (JSON, terminals): one UTF-8 policy. Invalid sequences are replaced by U+FFFD when text is kept
// (what nlohmann's error_handler_t::replace does), located when text is refused.
#include <cstdint>
#include <string>
#include <string_view>

namespace glueprof {

// The length of the valid UTF-8 sequence at text[i] (1-4), or 0 when none starts there
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
std::size_t utf8SequenceLength(std::string_view text, std::size_t i);

// The offset of the first byte that is not valid UTF-8, or -1 when all of `text` is.
std::int64_t firstInvalidUtf8(std::string_view text);

// `text` with each invalid sequence replaced by U+FFFD; valid text is returned unchanged.
std::string validUtf8(std::string_view text);

// validUtf8(text) with control characters (newlines, escapes) shown as '?': text quoted from
// outside that is printed on a terminal or in a table.
std::string printableText(std::string_view text);

// At most `maxBytes` of `text`, cut before a UTF-8 sequence rather than inside one, with "..."
// after it when anything was cut: a long trace name fit for a table cell.
std::string shortenedText(std::string_view text, std::size_t maxBytes);

// `text` as a JSON string literal: quoted, escaped, invalid UTF-8 replaced.
std::string jsonStringLiteral(std::string_view text);

}  // namespace glueprof
