#pragma once
// Trace diff (HTA's TraceDiff): which names of host events (ops, ranges, runtime calls) and device
// work (kernels, copies, memsets) one trace adds, removes or runs more or less often than another,
// per step: over one chosen step of each, or as the mean over their measured steps.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

enum class DiffSide { kHost, kDevice };
enum class NameChange { kAdded, kRemoved, kMore, kFewer, kUnchanged };
const char* toString(DiffSide side);
const char* toString(NameChange change);

struct NameDiff {
    std::string name;
    DiffSide side = DiffSide::kHost;
    double referenceCount = 0.0;  // per step
    double comparedCount = 0.0;
    double referenceMs = 0.0;  // total time per step
    double comparedMs = 0.0;
    NameChange change = NameChange::kUnchanged;
};

struct TraceDiffResult {
    std::optional<std::int32_t> step;  // the step compared, or the mean over measured steps
    std::size_t referenceSteps = 0;    // steps each side's figures come from
    std::size_t comparedSteps = 0;
    // Added, removed, more, fewer, then unchanged; within each, the largest time change first.
    std::vector<NameDiff> names;

    std::vector<const NameDiff*> of(NameChange change, DiffSide side) const;
};

// `step`: compare that step of each trace (an input error when either lacks it); else the means
// over each trace's measured steps.
TraceDiffResult diffTraces(const TraceModel& reference, const TraceModel& compared,
                           std::optional<std::int32_t> step = std::nullopt);

}  // namespace glueprof
