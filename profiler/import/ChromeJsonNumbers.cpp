#include "profiler/import/ChromeJsonNumbers.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>

namespace glueprof {

namespace {

// What nearly every trace writes ("1707417525509335.123", "12"): an optional '-', at most 19
// digits with at most three after a point, read in 64-bit integers. nullopt: another form, or a
// value past 64 bits, which the exact reading below takes (and refuses).
std::optional<TimestampNs> plainMicrosToNanos(std::string_view text) {
    const bool negative = !text.empty() && text[0] == '-';
    std::uint64_t mantissa = 0;
    int digits = 0;
    int fraction = -1;  // digits after the point; -1: no point
    for (std::size_t i = negative ? 1 : 0; i < text.size(); ++i) {
        const unsigned digit = static_cast<unsigned char>(text[i]) - static_cast<unsigned>('0');
        if (digit <= 9) {
            if (++digits > 19) return std::nullopt;  // < 10^19: no unsigned overflow
            mantissa = mantissa * 10 + digit;
            if (fraction >= 0) ++fraction;
        } else if (text[i] == '.' && fraction < 0) {
            fraction = 0;
        } else {
            return std::nullopt;
        }
    }
    const int scale = 3 - std::max(fraction, 0);  // µs -> ns
    if (digits == 0 || scale < 0 || digits + scale > 19) return std::nullopt;
    for (int i = 0; i < scale; ++i) mantissa *= 10;
    if (mantissa > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return std::nullopt;
    const auto value = static_cast<std::int64_t>(mantissa);
    return negative ? -value : value;
}

}  // namespace

std::optional<TimestampNs> microsToNanos(std::string_view text) {
    if (auto plain = plainMicrosToNanos(text)) return plain;
    // mantissa digits and a decimal exponent, all in integers: exact to the nanosecond.
    std::size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
    __int128 mantissa = 0;
    int exponent = 3;  // µs -> ns
    bool digits = false;
    bool point = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            digits = true;
            if (mantissa < (static_cast<__int128>(1) << 100)) {
                mantissa = mantissa * 10 + (c - '0');
                if (point) --exponent;
            } else if (!point) {
                ++exponent;  // beyond any range we keep: it will not fit
            }
        } else if (c == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (!digits) return std::nullopt;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        std::int64_t e = 0;
        const std::size_t digitsAt = i + 1 + (i + 1 < text.size() && text[i + 1] == '+');
        auto [end, error] = std::from_chars(text.data() + digitsAt, text.data() + text.size(), e);
        if (error != std::errc() || end != text.data() + text.size() || e > 40 || e < -40)
            return std::nullopt;
        exponent += static_cast<int>(e);
    } else if (i != text.size()) {
        return std::nullopt;
    }
    for (; exponent > 0; --exponent) {
        mantissa *= 10;
        if (mantissa > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
    }
    for (; exponent < 0; ++exponent) mantissa /= 10;  // below a nanosecond: truncated
    if (mantissa > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
    const auto value = static_cast<std::int64_t>(mantissa);
    return negative ? -value : value;
}

std::optional<std::int64_t> parseInteger(std::string_view text) {
    std::int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) return value;
    // "7.0" or "1e3": an integral value written as a decimal; "1.0005" is not one.
    auto thousandths = microsToNanos(text);
    if (!thousandths || *thousandths % 1000 != 0) return std::nullopt;
    auto millionths = microsToNanos(std::string(text) + "e3");  // sub-nanosecond digits too
    if (!millionths || *millionths != *thousandths * 1000) return std::nullopt;
    return *thousandths / 1000;
}

}  // namespace glueprof
