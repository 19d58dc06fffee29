#pragma once
// The results model: what glueprof says about runs in a database, built by one function and
// rendered by every face — `ab`'s table, `--json`, the Markdown and HTML reports, `run`'s summary,
// the GUI's panels and its --dump-state — so they cannot disagree. Each result type is serialized
// in one place (ResultsJson.h). Use cases that say more than that return typed results beside it:
// `compare` (CompareRequest.h), `simulate` (SimulationResults.h).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/AbComparison.h"
#include "analyzers/Analysis.h"
#include "analyzers/CopyOverlap.h"
#include "analyzers/PipelineBubbles.h"
#include "analyzers/RankAnalysis.h"
#include "analyzers/TracingOverhead.h"
#include "profiler/core/RunMetadata.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

class TraceReader;

// One run and everything the analyzers say about it, with what the views draw of it.
struct RunAnalysis {
    // The median ms per measured step of one part of the glue breakdown (0 when not analyzed).
    double medianPartMs(GluePart part) const {
        const std::size_t p = static_cast<std::size_t>(part);
        return p < analysis.glue.medianMsPerPart.size() ? analysis.glue.medianMsPerPart[p] : 0.0;
    }

    RunSummary run;
    AnalysisResult analysis;
    std::vector<Diagnostic> diagnostics;
    std::string gpuCapture;  // the run's environment `gpu_capture` ("" when not stored)
    TracingOverhead tracing;
    std::optional<RankClockAlignment> clockAlignment;
    OverlapStrip strip;   // the copies of the first measured step
    PipelineGantt gantt;  // pipeline runs: the workers' ranges of one step
};

// One A/B: the statistics of the pair and where its two runs are in Results::runs.
struct Comparison {
    AbComparison ab;           // a data-parallel A/B: rank 0's arms
    std::size_t baseline = 0;  // index into Results::runs
    std::size_t optimized = 0;
    // A data-parallel A/B (ab --nproc): every rank's arms compared, rank order (rank 0's first,
    // equal to `ab`). Empty for an A/B of one process.
    std::vector<AbComparison> rankComparisons;
};

// The ranks of a data-parallel run, or of one arm of a data-parallel A/B, side by side: where each
// rank's run is in Results::runs and what RankAnalysis says across them.
struct RankSet {
    std::vector<std::size_t> runs;  // index into Results::runs, rank order
    int worldSize = 0;  // the launch's; more than runs.size() when a rank's file was not merged
    RankAnalysisResult analysis;
};

struct SkippedComparison {
    std::string toggle;
    std::string reason;
};

struct Results {
    std::string db;
    std::vector<RunAnalysis> runs;           // every run shown, each once, in the order chosen
    std::vector<Comparison> comparisons;     // A/B pairs among them
    std::vector<SkippedComparison> skipped;  // toggles an A/B did not run, and why
    std::string reportPath;                  // the report file written beside them, if any
    // The data-parallel runs among `runs`, one set per run and arm of a launch; the ranks other
    // than the one selected are added to `runs` right after it (after both arms of a pair).
    std::vector<RankSet> rankSets;
    std::optional<AbSetup> setup;  // when there is a comparison

    // The set `runs[run]` belongs to, if it is one rank of several.
    const RankSet* rankSetOf(std::size_t run) const;

    // Of the first comparison (else the first run): preset, device and GPU capture line.
    std::string preset() const;
    std::string device() const;
    std::string gpuCapture() const;

    const RunAnalysis& baselineOf(const Comparison& c) const { return runs[c.baseline]; }
    const RunAnalysis& optimizedOf(const Comparison& c) const { return runs[c.optimized]; }
};

// One rank of a data-parallel A/B, as every face shows it: its arms, their comparison and each
// arm's comm/compute overlap on that rank.
struct RankPairView {
    int rank = 0;
    const RunAnalysis* baseline = nullptr;
    const RunAnalysis* optimized = nullptr;
    const AbComparison* ab = nullptr;
    double baselineOverlap = -1.0;  // -1: the rank had no comm
    double optimizedOverlap = -1.0;
};

// A data-parallel A/B's ranks in rank order, and each arm's RankSet; empty (and null) for an A/B
// of one process.
struct RankPairsView {
    int judgedRank = 0;  // the rank whose arms the comparison's verdict judged (its pair's)
    std::vector<RankPairView> ranks;
    const RankSet* baseline = nullptr;
    const RankSet* optimized = nullptr;
};
RankPairsView rankPairsOf(const Comparison& comparison, const Results& results);

// One rank of a RankSet, as every face shows it.
struct RankRowView {
    int rank = 0;
    const RunAnalysis* run = nullptr;
    double overlap = -1.0;  // its comm/compute overlap; -1: the rank had no comm
    int slowestCount = 0;   // measured steps it was the slowest rank in
};
std::vector<RankRowView> rankRowsOf(const RankSet& set, const Results& results);

// The rank sets no comparison shows rank by rank (data-parallel runs shown alone).
std::vector<const RankSet*> rankSetsShownAlone(const Results& results);

// What to show: runs alone and pairs (reference run, compared run).
struct ResultsSelection {
    std::vector<RunId> runs;
    std::vector<std::pair<RunId, RunId>> pairs;
};

// Loads each selected run once, analyzes it and compares each pair (compareArms names and
// judges it). A run that is one rank of a data-parallel launch brings its ranks (AbPairs.h
// rankSiblings): they are analyzed too, side by side in a RankSet, and a pair of such runs is
// compared rank by rank.
Results buildResults(const TraceReader& reader, const std::string& db,
                     const ResultsSelection& selection);

// `loaded`'s ranks when it is one rank of a data-parallel launch (AbPairs.h rankSiblings among
// `runs`, the runs of its database), rank order: `loaded` itself and the others, read into
// `storage`; empty when it is not, or its siblings were not merged.
std::vector<const TraceModel*> loadRankTraces(const TraceReader& reader, const TraceModel& loaded,
                                              const std::vector<RunSummary>& runs,
                                              std::vector<std::unique_ptr<TraceModel>>& storage);

// The same from traces already in memory (the GUI, tests): one run, or a baseline and a compared
// run. `ranks[i]`, when given and not empty: traces[i]'s ranks (traces[i] among them, rank order),
// analyzed side by side as above.
Results buildResults(const std::vector<const TraceModel*>& traces, const std::string& db = "",
                     const std::vector<std::vector<const TraceModel*>>& ranks = {});

// One run as Results holds it: every analyzer's result, its environment's figures (GPU capture,
// clock alignment, tracing overhead) and what the views draw of it.
RunAnalysis analyzeRun(const TraceModel& trace);

// The statistics of one pair, as Results holds them: when the runs are the two arms of one A/B,
// named after its toggle and judged on that toggle's primary metric (the catalogue's); any other
// pair is "run A vs B", judged on step time. `check` gates on these without analyzing the runs
// further.
AbComparison compareArms(const TraceModel& baseline, const TraceModel& optimized);
// The same with the runs' step breakdowns already computed.
AbComparison compareArms(const TraceModel& baseline, const StepBreakdownResult& baselineSteps,
                         const TraceModel& optimized, const StepBreakdownResult& optimizedSteps);

}  // namespace glueprof
