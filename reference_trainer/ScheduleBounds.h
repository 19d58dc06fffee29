#pragma once
// The bounds of a training schedule, in one place for every face that takes one: `glueprof run`
// and `glueprof ab` (--steps, --warmup, --repeats) and the desktop app (the Run A/B panel and the
// script's `run PRESET TOGGLES STEPS WARMUP REPEATS`), so a schedule one refuses the other refuses
// too. Torch-free header.

namespace glueprof {

struct ScheduleBound {
    const char* option;  // the CLI's flag, named in the app's messages too
    const char* what;    // what it counts, for messages
    int min;
    int max;
    constexpr bool contains(long long value) const { return value >= min && value <= max; }
};

inline constexpr ScheduleBound kStepsBound{"--steps", "measured steps per block", 1, 100000};
inline constexpr ScheduleBound kWarmupBound{"--warmup", "warm-up steps per arm", 0, 100000};
inline constexpr ScheduleBound kRepeatsBound{"--repeats", "blocks per arm", 1, 1000};

}  // namespace glueprof
