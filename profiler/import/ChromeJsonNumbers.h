#pragma once
// Numbers as a Chrome trace's JSON text writes them, read from the text itself, never through a
// double: exact to the nanosecond (docs/import.md §3, "Times").
#include <cstdint>
#include <optional>
#include <string_view>

#include "profiler/core/Clock.h"

namespace glueprof {

// Exactly: a decimal number of microseconds ("12.345", "1.5e3", "-2") in nanoseconds; nullopt when
// the text is no number or does not fit (digits below a nanosecond are cut).
std::optional<TimestampNs> microsToNanos(std::string_view text);

// An integer ("7"), or an integral value written as a decimal ("7.0", "1e3"; not "1.0005").
std::optional<std::int64_t> parseInteger(std::string_view text);

}  // namespace glueprof
