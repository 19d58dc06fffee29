#pragma once
// What a run is, in typed columns of `runs` (schema v2) rather than in its label: recorded by the
// trainer, simulated or imported; which A/B it belongs to and as which arm; the toggle it compares;
// the pipeline schedule it ran; its rank in a multi-process job. Readers pair A/B arms and find a
// pipeline's schedule from here only (docs/schema.md).
#include <optional>
#include <string>
#include <string_view>

#include "profiler/core/Event.h"

namespace glueprof {

// Stored as text: 'trained', 'simulated', 'imported'.
enum class RunKind { kTrained, kSimulated, kImported };
const char* toString(RunKind kind);
std::optional<RunKind> parseRunKind(std::string_view text);

// Stored as text ('baseline', 'optimized', 'A', 'B') or NULL for a run outside any A/B. A toggle's
// A/B has a baseline and an optimized arm; a comparison of two recordings (A/B of imported traces)
// has A and B.
enum class Arm { kNone, kBaseline, kOptimized, kA, kB };
const char* toString(Arm arm);        // "" for kNone
Arm parseArm(std::string_view text);  // kNone for "" or anything else

struct RunIdentity {
    RunKind kind = RunKind::kTrained;
    // The A/B this run is an arm of: the id of the group's first run (its baseline); 0 = none.
    // kStartsAbGroup asks the writer to use the run's own id.
    RunId abGroup = 0;
    Arm arm = Arm::kNone;
    std::string toggle;       // the toggle an A/B compares; "" outside a toggle's A/B
    std::string schedule;     // a pipeline's schedule ("looped-bfs", "roundpipe"); "" when none
    std::optional<int> rank;  // multi-process runs; NULL otherwise
    std::optional<int> worldSize;  // likewise

    // One rank of a multi-process job of several ranks (a rank of a world of 1, or a rank without
    // a world size, as an imported trace may say, is not).
    bool isRankOfSeveral() const { return rank.has_value() && worldSize.value_or(1) > 1; }
    // The reference side of a comparison (baseline or A), and the side compared with it.
    bool isReferenceArm() const { return arm == Arm::kBaseline || arm == Arm::kA; }
    bool isComparedArm() const { return arm == Arm::kOptimized || arm == Arm::kB; }
};

}  // namespace glueprof
