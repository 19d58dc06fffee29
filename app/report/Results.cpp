#include "app/report/Results.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "app/report/AbPairs.h"
#include "profiler/core/RunMetadata.h"
#include "profiler/core/ToggleCatalog.h"
#include "profiler/core/TraceNames.h"
#include "profiler/core/TraceReader.h"

namespace glueprof {

namespace {

class ResultsBuilder {
  public:
    explicit ResultsBuilder(Results& results) : m_results(results) {}

    bool has(RunId run) const { return run != 0 && m_index.count(run) != 0; }

    std::size_t add(const TraceModel& trace) {
        auto found = m_index.find(trace.run().id);
        if (found != m_index.end() && trace.run().id != 0) return found->second;
        m_results.runs.push_back(analyzeRun(trace));
        m_index[trace.run().id] = m_results.runs.size() - 1;
        return m_results.runs.size() - 1;
    }

    void compare(const TraceModel& baseline, const TraceModel& optimized) {
        Comparison c;
        c.baseline = add(baseline);
        c.optimized = add(optimized);
        c.ab = compareOf(baseline, c.baseline, optimized, c.optimized);
        if (!m_results.setup) m_results.setup = abSetupOf(baseline);
        m_results.comparisons.push_back(std::move(c));
    }

    // The arms of the last comparison, rank by rank: `baselines` and `optimized` are every rank's
    // arms (the compared pair among them), rank order; arms are paired by their rank, and only
    // where both ended complete.
    void compareRanks(const std::vector<const TraceModel*>& baselines,
                      const std::vector<const TraceModel*>& optimized) {
        addRanks(baselines);
        addRanks(optimized);
        if (baselines.size() < 2 || optimized.size() < 2) return;
        Comparison& c = m_results.comparisons.back();
        for (const TraceModel* b : baselines) {
            for (const TraceModel* o : optimized) {
                if (b->run().identity.rank != o->run().identity.rank ||
                    b->run().displayStatus() != "complete" ||
                    o->run().displayStatus() != "complete")
                    continue;
                c.rankComparisons.push_back(compareOf(*b, add(*b), *o, add(*o)));
            }
        }
    }

    // A data-parallel run's ranks, rank order (the run among them), as one RankSet; nothing for
    // fewer than 2 (a rank whose siblings were not merged is a run alone).
    void addRanks(const std::vector<const TraceModel*>& ranks) {
        if (ranks.size() < 2) return;
        RankSet set;
        for (const TraceModel* rank : ranks) set.runs.push_back(add(*rank));
        for (const RankSet& existing : m_results.rankSets)
            if (existing.runs == set.runs) return;
        set.worldSize = ranks.front()->run().identity.worldSize.value_or(1);
        set.analysis = analyzeRanks(ranks);
        m_results.rankSets.push_back(std::move(set));
    }

  private:
    // The breakdowns the analysis of each run already holds, not computed again.
    AbComparison compareOf(const TraceModel& baseline, std::size_t b, const TraceModel& optimized,
                           std::size_t o) const {
        return compareArms(baseline, m_results.runs[b].analysis.steps, optimized,
                           m_results.runs[o].analysis.steps);
    }

    Results& m_results;
    std::map<RunId, std::size_t> m_index;
};

}  // namespace

std::vector<const TraceModel*> loadRankTraces(const TraceReader& reader, const TraceModel& loaded,
                                              const std::vector<RunSummary>& runs,
                                              std::vector<std::unique_ptr<TraceModel>>& storage) {
    std::vector<const TraceModel*> ranks;
    if (!loaded.run().identity.isRankOfSeveral()) return ranks;
    for (const RunSummary& sibling : rankSiblings(loaded.run(), runs)) {
        if (sibling.id == loaded.run().id) {
            ranks.push_back(&loaded);
        } else {
            storage.push_back(std::make_unique<TraceModel>(reader.loadRun(sibling.id)));
            ranks.push_back(storage.back().get());
        }
    }
    if (ranks.size() < 2) ranks.clear();
    return ranks;
}

AbComparison compareArms(const TraceModel& baseline, const StepBreakdownResult& baselineSteps,
                         const TraceModel& optimized, const StepBreakdownResult& optimizedSteps) {
    const RunSummary& reference = baseline.run();
    const RunSummary& compared = optimized.run();
    const TimingMetric primary = armsOfOneAb(reference, compared)
                                     ? primaryMetricOf(compared.identity.toggle)
                                     : TimingMetric::kStep;
    AbComparison ab = compareRuns(pairName(reference, compared), primary, baseline, baselineSteps,
                                  optimized, optimizedSteps);
    if (armsOfOneAb(reference, compared)) {
        // A toggle's A/B times its toggle's target; an A/B of a program's two versions (ab
        // --exec) the range its --target named, stored in the arms' configuration.
        const std::string range = targetRangeOf(compared);
        const TargetMetric metric =
            range.empty() ? targetMetricOf(compared.identity.toggle) : targetMetricOfRange(range);
        ab.target =
            compareTarget(metric, baseline, optimized, baselineSteps.median(TimingMetric::kStep),
                          metric == TargetMetric::kUserRange ? range : "");
    }
    return ab;
}

AbComparison compareArms(const TraceModel& baseline, const TraceModel& optimized) {
    return compareArms(baseline, analyzeStepBreakdown(baseline), optimized,
                       analyzeStepBreakdown(optimized));
}

RunAnalysis analyzeRun(const TraceModel& trace) {
    RunAnalysis r;
    r.run = trace.run();
    r.analysis = analyze(trace);
    r.diagnostics = trace.diagnostics();
    const RunEnvironment environment = runEnvironmentOf(trace.run());
    r.gpuCapture = environment.gpuCapture;
    r.clockAlignment = environment.clockAlignment;
    r.tracing = tracingOverheadOf(trace, environment.tracingCostRecorded,
                                  environment.tracingNsPerOp, r.analysis.steps);
    r.strip = overlapStripOf(trace);
    r.gantt = pipelineGanttOf(trace);
    return r;
}

Results buildResults(const TraceReader& reader, const std::string& db,
                     const ResultsSelection& selection) {
    Results results;
    results.db = db;
    ResultsBuilder builder(results);
    std::optional<std::vector<RunSummary>> stored;  // listed once, when a run is a rank
    auto storedRuns = [&]() -> const std::vector<RunSummary>& {
        if (!stored) stored = reader.listRuns();
        return *stored;
    };
    for (const auto& [baselineId, optimizedId] : selection.pairs) {
        // One pair in memory at a time (with its ranks): a suite never holds all its traces.
        const TraceModel baseline = reader.loadRun(baselineId);
        const TraceModel optimized = reader.loadRun(optimizedId);
        builder.compare(baseline, optimized);
        std::vector<std::unique_ptr<TraceModel>> storage;
        if (baseline.run().identity.isRankOfSeveral() ||
            optimized.run().identity.isRankOfSeveral()) {
            builder.compareRanks(loadRankTraces(reader, baseline, storedRuns(), storage),
                                 loadRankTraces(reader, optimized, storedRuns(), storage));
        }
    }
    for (RunId run : selection.runs) {
        if (builder.has(run)) continue;  // each run read once
        const TraceModel trace = reader.loadRun(run);
        builder.add(trace);
        if (trace.run().identity.isRankOfSeveral()) {
            std::vector<std::unique_ptr<TraceModel>> storage;
            builder.addRanks(loadRankTraces(reader, trace, storedRuns(), storage));
        }
    }
    return results;
}

Results buildResults(const std::vector<const TraceModel*>& traces, const std::string& db,
                     const std::vector<std::vector<const TraceModel*>>& ranks) {
    Results results;
    results.db = db;
    ResultsBuilder builder(results);
    const auto ranksOf = [&](std::size_t i) {
        return i < ranks.size() ? ranks[i] : std::vector<const TraceModel*>{};
    };
    if (traces.size() == 2) {
        builder.compare(*traces[0], *traces[1]);
        builder.compareRanks(ranksOf(0), ranksOf(1));
        return results;
    }
    for (std::size_t i = 0; i < traces.size(); ++i) {
        builder.add(*traces[i]);
        if (!ranksOf(i).empty()) builder.addRanks(ranks[i]);
    }
    return results;
}

namespace {
const RunAnalysis* headline(const Results& r) {
    if (!r.comparisons.empty()) return &r.runs[r.comparisons.front().baseline];
    return r.runs.empty() ? nullptr : &r.runs.front();
}
}  // namespace

RankPairsView rankPairsOf(const Comparison& comparison, const Results& results) {
    RankPairsView view;
    view.baseline = results.rankSetOf(comparison.baseline);
    view.optimized = results.rankSetOf(comparison.optimized);
    if (comparison.rankComparisons.empty() || view.baseline == nullptr || view.optimized == nullptr)
        return RankPairsView{};
    view.judgedRank = results.runs[comparison.baseline].run.identity.rank.value_or(0);
    // Where run `id` is in `set`, or set.runs.size().
    const auto positionOf = [&](const RankSet& set, RunId id) {
        std::size_t p = 0;
        while (p < set.runs.size() && results.runs[set.runs[p]].run.id != id) ++p;
        return p;
    };
    const auto overlapAt = [](const RankSet& set, std::size_t p) {
        return p < set.analysis.overlapRatio.size() ? set.analysis.overlapRatio[p] : -1.0;
    };
    for (const AbComparison& ab : comparison.rankComparisons) {
        const std::size_t b = positionOf(*view.baseline, ab.baselineRun);
        const std::size_t o = positionOf(*view.optimized, ab.optimizedRun);
        if (b == view.baseline->runs.size() || o == view.optimized->runs.size()) continue;
        RankPairView rank;
        rank.baseline = &results.runs[view.baseline->runs[b]];
        rank.optimized = &results.runs[view.optimized->runs[o]];
        rank.rank = rank.baseline->run.identity.rank.value_or(0);
        rank.ab = &ab;
        rank.baselineOverlap = overlapAt(*view.baseline, b);
        rank.optimizedOverlap = overlapAt(*view.optimized, o);
        view.ranks.push_back(rank);
    }
    return view;
}

std::vector<RankRowView> rankRowsOf(const RankSet& set, const Results& results) {
    std::vector<RankRowView> rows;
    const RankAnalysisResult& a = set.analysis;
    for (std::size_t p = 0; p < set.runs.size(); ++p) {
        RankRowView row;
        row.run = &results.runs[set.runs[p]];
        row.rank = row.run->run.identity.rank.value_or(static_cast<int>(p));
        row.overlap = p < a.overlapRatio.size() ? a.overlapRatio[p] : -1.0;
        row.slowestCount = p < a.slowestCount.size() ? a.slowestCount[p] : 0;
        rows.push_back(row);
    }
    return rows;
}

std::vector<const RankSet*> rankSetsShownAlone(const Results& results) {
    std::vector<const RankSet*> alone;
    for (const RankSet& set : results.rankSets) {
        bool compared = false;
        for (const Comparison& c : results.comparisons) {
            const RankPairsView view = rankPairsOf(c, results);
            compared = compared || view.baseline == &set || view.optimized == &set;
        }
        if (!compared) alone.push_back(&set);
    }
    return alone;
}

const RankSet* Results::rankSetOf(std::size_t run) const {
    for (const RankSet& set : rankSets)
        if (std::find(set.runs.begin(), set.runs.end(), run) != set.runs.end()) return &set;
    return nullptr;
}

std::string Results::preset() const {
    const RunAnalysis* r = headline(*this);
    return r != nullptr ? r->run.preset : "";
}

std::string Results::device() const {
    const RunAnalysis* r = headline(*this);
    return r != nullptr ? r->run.device : "";
}

std::string Results::gpuCapture() const {
    const RunAnalysis* r = headline(*this);
    return r != nullptr ? r->gpuCapture : "";
}

}  // namespace glueprof
