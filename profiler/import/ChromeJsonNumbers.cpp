#include "profiler/import/ChromeJsonNumbers.h"

#include <charconv>
#include <limits>
#include <string>

namespace glueprof {

std::optional<TimestampNs> microsToNanos(std::string_view text) {
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
