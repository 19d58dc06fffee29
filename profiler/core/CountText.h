#pragma once
// A count in words as every face prints it: whole numbers in full (7340032, never 7.34003e+06),
// fractions (a median over steps, a mean per step) with up to 6 significant digits and no exponent.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace glueprof {

inline std::string countText(double value) {
    char text[64];
    if (!std::isfinite(value)) {
        std::snprintf(text, sizeof text, "%g", value);
    } else if (value == std::trunc(value) && std::fabs(value) < 1e15) {
        std::snprintf(text, sizeof text, "%.0f", value);
    } else {
        // 6 significant digits: 1234.5678 keeps 2 decimals, 0.333333 keeps 6, 0.000001 keeps 11.
        const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value)))) + 1;
        const int decimals = magnitude >= 6 ? 1 : std::min(15, 6 - magnitude);
        std::snprintf(text, sizeof text, "%.*f", decimals, value);
        std::string trimmed(text);
        trimmed.erase(trimmed.find_last_not_of('0') + 1);
        if (!trimmed.empty() && trimmed.back() == '.') trimmed.pop_back();
        return trimmed;
    }
    return text;
}

}  // namespace glueprof
