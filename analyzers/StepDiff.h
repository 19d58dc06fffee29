#pragma once
// Step diff: one step of run A against one step of run B, name by name. For every event name seen
// in either step (ranges, ops, copies, waits; phase ranges like `forward` included), its count and
// its inclusive time in each: names whose count changed first (by how much), then by the size of
// the time difference. The timeline's
// step-aligned diff lists it and highlights the chosen name in both runs.
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

struct NameDelta {
    std::string name;
    EventKind kind = EventKind::kRange;
    std::int64_t countA = 0;
    std::int64_t countB = 0;
    TimestampNs nsA = 0;  // inclusive, summed
    TimestampNs nsB = 0;

    double deltaMs() const { return static_cast<double>(nsB - nsA) / 1e6; }
    bool countChanged() const { return countA != countB; }
};

struct StepDiff {
    std::int32_t stepA = -1;  // the steps compared (-1 when the run has none)
    std::int32_t stepB = -1;
    TimestampNs lengthA = 0;
    TimestampNs lengthB = 0;
    std::vector<NameDelta> names;  // count changes first, then by |nsB - nsA|, then by name
};

// `step` < 0 takes each run's first measured step. Events count toward a step when they start
// inside its [start, end) window, on any lane.
StepDiff diffSteps(const TraceModel& a, const TraceModel& b, std::int32_t step);

// The step the timeline aligns on: `step`, or the first measured step when `step` < 0 (or absent).
const StepInfo* alignedStep(const TraceModel& trace, std::int32_t step);

}  // namespace glueprof
