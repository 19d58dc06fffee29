#pragma once
// Checks of floating-point options. CLI::Range only compares, and every comparison with NaN is
// false, so `nan` passed it; CLI::PositiveNumber's message printed its 309-digit bound. These
// refuse NaN and the infinities and say the range in words; CLI11 puts the option's name in front.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace glueprof::cli {

// A finite number > 0; `what` says which ("a positive number of seconds").
inline CLI::Validator finitePositive(const std::string& what) {
    return CLI::Validator(
        [what](std::string& input) -> std::string {
            double value = 0.0;
            if (CLI::detail::lexical_cast(input, value) && std::isfinite(value) && value > 0.0)
                return "";
            return fmt::format("{} is not {}", input, what);
        },
        "POSITIVE");
}

// A finite number in [min, max].
inline CLI::Validator finiteRange(double min, double max) {
    return CLI::Validator(
        [min, max](std::string& input) -> std::string {
            double value = 0.0;
            if (CLI::detail::lexical_cast(input, value) && std::isfinite(value) && value >= min &&
                value <= max)
                return "";
            return fmt::format("{} is not a number from {:.15g} to {:.15g}", input, min, max);
        },
        fmt::format("[{:.15g} - {:.15g}]", min, max));
}

}  // namespace glueprof::cli
