#pragma once
// A/B runs in a database, paired by their identity columns (runs.ab_group and runs.arm, schema
// v2): the reference arm (baseline or A) and the compared arm (optimized or B) of one group.
// Shared by check, report and the GUI.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

// Whether `compared` is the compared arm (optimized or B) of the A/B whose reference arm (baseline
// or A) is `reference`: one ab_group, the arms in that order.
bool armsOfOneAb(const RunSummary& reference, const RunSummary& compared);
// What a pair of runs compares: the toggle of one A/B's arms; otherwise "run A vs B".
std::string pairName(const RunSummary& reference, const RunSummary& compared);

struct AbPair {
    RunSummary baseline;   // the reference arm
    RunSummary optimized;  // the compared arm
    std::string name() const { return pairName(baseline, optimized); }
};

// The latest complete A/B of each toggle (by the compared arm's run id), both arms complete. A
// data-parallel A/B (ab --nproc) is one pair per rank in one group: it is named by its lowest
// rank's pair, rank 0's (the other ranks' arms are its rankSiblings).

std::map<std::string, AbPair> latestAbPairs(const std::vector<RunSummary>& runs);
// The newest of them (by optimized run id), if any.
std::optional<AbPair> newestAbPair(const std::vector<RunSummary>& runs);

// The runs of `run`'s data-parallel launch that have its role — one group, arm and world size, any
// status — in rank order (`run` among them); just `run` for a run of one process. A rank missing
// from `runs` (its file was not merged) is left out.
std::vector<RunSummary> rankSiblings(const RunSummary& run, const std::vector<RunSummary>& runs);

}  // namespace glueprof
