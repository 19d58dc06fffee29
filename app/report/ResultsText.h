#pragma once
// The results model as console text: `ab`'s verdict table (every comparison), `compare`'s pair
// and `run`'s summary (one run).
#include <cstdint>
#include <string>

#include "app/report/CompareResults.h"
#include "app/report/Results.h"

namespace glueprof {

std::string renderComparisonTable(const Results& results);

// `compare`'s text: the pair's table (renderComparisonTable), what changed by name, then the sync
// points before and after; `top` names at most per group.
std::string renderCompareText(const CompareResults& compared, std::size_t top);

// What the process measured about itself beside the trace.
struct ProcessStats {
    std::int64_t peakRssBytes = 0;  // peak resident set of the process (0: unknown)
};
std::string renderRunSummary(const RunAnalysis& run, const std::string& db,
                             const ProcessStats& process = {});

// A data-parallel run's ranks, one line each (run id, median step, exposed communication, last
// loss), and how their clocks were put on rank 0's (environment `clock_alignment`).
// Then the ranks compared (RankAnalysis): slowest rank, spread, straggler time, overlap.
// (`ab`'s table shows a data-parallel A/B's ranks under its comparison.)
std::string renderRankLines(const Results& results, const RankSet& ranks);

}  // namespace glueprof
