#pragma once
// Durations the analyzer tests build their traces with, in the store's nanoseconds.
#include "profiler/core/Clock.h"

namespace glueprof::testing_units {

constexpr TimestampNs kUs = 1000;
constexpr TimestampNs kMs = 1000 * kUs;

}  // namespace glueprof::testing_units
