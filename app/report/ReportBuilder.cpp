#include "app/report/ReportBuilder.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/report/RankText.h"
#include "app/report/SyncComparison.h"
#include "app/report/VerdictText.h"
#include "profiler/core/CountText.h"

namespace glueprof {

std::string comparisonAnchor(const AbComparison& comparison) {
    return fmt::format("ab-{}", comparison.optimizedRun);
}

namespace {

std::string lossText(const AbComparison& c) {
    return !c.lossRecorded ? "not recorded" : c.lossEqual ? "bit-identical" : "DIFFERS";
}

// A loss that differs in bold: the A/B changed the math.
Text lossCell(const AbComparison& c) {
    return c.lossRecorded && !c.lossEqual ? bold(lossText(c)) : plain(lossText(c));
}

// What the toggle did, counted: each counter whose per-step median changed, before → after.
Text changedCounters(const AbComparison& c) {
    Text changed;
    for (const CounterComparison& k : c.counters) {
        if (k.baseline == k.optimized) continue;
        if (!changed.empty()) changed += plain(", ");
        changed += code(k.name) +
                   plain(fmt::format(" {} → {}", countText(k.baseline), countText(k.optimized)));
    }
    return changed.empty() ? plain("-") : changed;
}

void addTitle(ReportDocument& doc, const Results& results) {
    doc.heading(1, plain("glueprof report"));
    Text setup;
    if (results.setup) {
        setup +=
            plain("Preset ") + code(results.preset()) + plain(" on ") + code(results.device()) +
            plain(fmt::format("; {} block(s) of {} step(s) per arm, interleaved, after {} "
                              "warm-up step(s).",
                              results.setup->repeats, results.setup->steps, results.setup->warmup));
    }
    if (!results.db.empty()) {
        setup +=
            plain(setup.empty() ? "Database: " : " Database: ") + code(results.db) + plain(".");
    }
    if (!setup.empty()) doc.paragraph(setup);
    if (!results.gpuCapture().empty())
        doc.paragraph(plain("GPU capture: ") + code(results.gpuCapture()) + plain("."));
}

// Every A/B's verdicts in one table, before the sections: what the whole A/B suite found.
void addVerdictTable(ReportDocument& doc, const Results& results) {
    if (results.comparisons.empty() && results.skipped.empty()) return;
    Table t{{{"toggle", Align::kLeft},
             {"target", Align::kLeft},
             {"end to end", Align::kLeft},
             {"verdict", Align::kLeft},
             {"primary metric", Align::kLeft},
             {"speedup [95% CI]", Align::kLeft},
             {"counters that changed (per step)", Align::kLeft},
             {"loss", Align::kLeft}},
            true};
    for (const Comparison& comparison : results.comparisons) {
        const AbComparison& c = comparison.ab;
        const MetricComparison* m = c.metric(c.primaryMetric);
        t.rows.push_back({
            linked(code(c.toggle), comparisonAnchor(c)),
            c.target ? foreign(targetVerdictText(*c.target)) : plain("-"),
            foreign(endToEndVerdictText(c)),
            // With a target its verdict and the end-to-end one are the A/B's (docs/metrics.md).
            c.target       ? plain("-")
            : m != nullptr ? foreign(verdictText(c.verdict(), *m))
                           : foreign(toString(c.verdict())),
            plain(toString(c.primaryMetric)),
            plain(m != nullptr ? speedupText(*m) : "-"),
            changedCounters(c),
            lossCell(c),
        });
    }
    for (const SkippedComparison& s : results.skipped) {
        t.rows.push_back({code(s.toggle), plain("-"), plain("-"), plain("skipped"), plain("-"),
                          plain("-"), plain("-"), foreign(s.reason)});
    }
    doc.table(std::move(t));
}

void addRunList(ReportDocument& doc, const Results& results) {
    doc.paragraph(plain("Runs:"));
    std::vector<Text> items;
    for (const RunAnalysis& r : results.runs) {
        items.push_back(plain(fmt::format("run {} ", r.run.id)) + code(r.run.label) +
                        plain(": preset ") + code(r.run.preset) + plain(" on ") +
                        code(r.run.device) + plain(", ") + foreign(r.run.displayStatus()));
    }
    doc.list(std::move(items));
}

// The two arms' copies, pipeline and host syncs side by side.
void addSideFigures(ReportDocument& doc, const AnalysisResult& b, const AnalysisResult& o) {
    const auto row = [](std::string name, std::string before, std::string after) {
        return std::vector<Text>{plain(std::move(name)), plain(std::move(before)),
                                 plain(std::move(after))};
    };
    if (b.copyOverlap.total.copies > 0 || o.copyOverlap.total.copies > 0) {
        Table t{{{"copies (per measured step)", Align::kLeft}, {"baseline"}, {"optimized"}}};
        t.rows.push_back(row("copy ms", fmt::format("{:.3f}", b.copyOverlap.copyMsPerStep()),
                             fmt::format("{:.3f}", o.copyOverlap.copyMsPerStep())));
        t.rows.push_back(row("exposed copy ms",
                             fmt::format("{:.3f}", b.copyOverlap.exposedMsPerStep()),
                             fmt::format("{:.3f}", o.copyOverlap.exposedMsPerStep())));
        t.rows.push_back(row("copy/compute overlap ratio",
                             fmt::format("{:.3f}", b.copyOverlap.total.overlapRatio()),
                             fmt::format("{:.3f}", o.copyOverlap.total.overlapRatio())));
        doc.table(std::move(t));
    }
    if (b.bubbles.workers > 0 || o.bubbles.workers > 0) {
        Table t{{{"pipeline (executed, per measured step)", Align::kLeft},
                 {"baseline"},
                 {"optimized"}}};
        t.rows.push_back(
            row("workers", std::to_string(b.bubbles.workers), std::to_string(o.bubbles.workers)));
        t.rows.push_back(row("makespan ms (median step)",
                             fmt::format("{:.3f}", b.bubbles.medianStepMakespanMs()),
                             fmt::format("{:.3f}", o.bubbles.medianStepMakespanMs())));
        t.rows.push_back(row("bubble ratio", fmt::format("{:.1f}%", 100 * b.bubbles.ratio),
                             fmt::format("{:.1f}%", 100 * o.bubbles.ratio)));
        const auto before = b.bubbles.breakdown();
        const auto after = o.bubbles.breakdown();
        for (std::size_t k = 0; k < before.size() && k < after.size(); ++k) {
            t.rows.push_back(row(before[k].first, fmt::format("{:.1f}%", 100 * before[k].second),
                                 fmt::format("{:.1f}%", 100 * after[k].second)));
        }
        doc.table(std::move(t));
    }
    if (b.syncPoints.hostSyncsCaptured || o.syncPoints.hostSyncsCaptured) {
        doc.paragraph(plain(fmt::format(
            "Host syncs captured on the GPU (CUPTI): {:g} -> {:g} per step, blocking {:.3f} -> "
            "{:.3f} ms per step.",
            b.syncPoints.medianHostSyncsPerStep, o.syncPoints.medianHostSyncsPerStep,
            b.syncPoints.medianSyncBlockedMs, o.syncPoints.medianSyncBlockedMs)));
    }
}

// Sync points per measured step of each op, baseline beside optimized.
void addSyncsByOp(ReportDocument& doc, const SyncPointsResult& b, const SyncPointsResult& o) {
    doc.heading(3, plain("Sync points per measured step, by op"));
    Table t{{{"op", Align::kLeft}, {"baseline"}, {"optimized"}}};
    for (const SyncOpPerStep& op : compareSyncPoints(b, o).opsPerStep)
        t.rows.push_back(
            {code(op.op), plain(countText(op.baseline)), plain(countText(op.optimized))});
    if (t.rows.empty())
        doc.paragraph(plain("No sync points in the measured steps of either run."));
    else
        doc.table(std::move(t));
}

// A data-parallel A/B's ranks: each rank's arms compared, and the ranks side by side per arm.
void addRankPairs(ReportDocument& doc, const Comparison& comparison, const Results& results) {
    const RankPairsView view = rankPairsOf(comparison, results);
    if (view.ranks.empty()) return;
    doc.heading(3, plain(fmt::format(
                       "Ranks ({} processes, data parallel; the verdicts above are rank {}'s)",
                       view.baseline->worldSize, view.judgedRank)));
    Table t{{{"rank", Align::kLeft},
             {"runs", Align::kLeft},
             {"step ms (baseline → optimized)", Align::kLeft},
             {"step speedup [95% CI]", Align::kLeft},
             {"exposed comm ms", Align::kLeft},
             {"comm/compute overlap", Align::kLeft},
             {"loss", Align::kLeft},
             {"clock", Align::kLeft}}};
    for (const RankPairView& rank : view.ranks) {
        const MetricComparison* step = rank.ab->metric(TimingMetric::kStep);
        t.rows.push_back({
            plain(std::to_string(rank.rank)),
            plain(fmt::format("{} vs {}", rank.ab->baselineRun, rank.ab->optimizedRun)),
            plain(step != nullptr ? fmt::format("{:.3f} → {:.3f}", step->baseline, step->optimized)
                                  : "-"),
            plain(step != nullptr ? speedupText(*step) : "-"),
            plain(fmt::format("{:.3f} → {:.3f}", rank.baseline->medianPartMs(GluePart::kComm),
                              rank.optimized->medianPartMs(GluePart::kComm))),
            plain(fmt::format("{} → {}", overlapRatioText(rank.baselineOverlap),
                              overlapRatioText(rank.optimizedOverlap))),
            lossCell(*rank.ab),
            foreign(clockAlignmentText(*rank.optimized)),
        });
    }
    doc.table(std::move(t));
    doc.paragraph(plain(fmt::format(
        "Spread per step (slowest rank − median rank): {:.3f} → {:.3f} ms. Straggler time (the "
        "worst collective of a step, last rank's start − first's): {:.3f} → {:.3f} ms. Overlap "
        "is HTA's |comm ∩ compute| / |comm|.",
        view.baseline->analysis.medianSpreadMs, view.optimized->analysis.medianSpreadMs,
        view.baseline->analysis.medianStragglerMs, view.optimized->analysis.medianStragglerMs)));
}

// A data-parallel run's ranks side by side.
void addRankSet(ReportDocument& doc, const RankSet& set, const Results& results) {
    const RankAnalysisResult& a = set.analysis;
    doc.heading(2, plain(fmt::format("Ranks of run {} ({} processes, data parallel)",
                                     results.runs[set.runs.front()].run.id, set.worldSize)));
    Table t{{{"rank", Align::kLeft},
             {"run", Align::kLeft},
             {"median step ms"},
             {"exposed comm ms"},
             {"comm/compute overlap"},
             {"slowest in"},
             {"clock", Align::kLeft}}};
    for (const RankRowView& row : rankRowsOf(set, results)) {
        const RunAnalysis& r = *row.run;
        t.rows.push_back({plain(std::to_string(row.rank)), plain(std::to_string(r.run.id)),
                          plain(fmt::format("{:.3f}", r.analysis.steps.medianWallMs)),
                          plain(fmt::format("{:.3f}", r.medianPartMs(GluePart::kComm))),
                          plain(overlapRatioText(row.overlap)),
                          plain(fmt::format("{} step(s)", row.slowestCount)),
                          foreign(clockAlignmentText(r))});
    }
    doc.table(std::move(t));
    doc.paragraph(plain(fmt::format(
        "Spread per step (slowest rank − median rank): {:.3f} ms. Straggler time (the worst "
        "collective of a step, last rank's start − first's): {:.3f} ms, over {} measured steps.",
        a.medianSpreadMs, a.medianStragglerMs, a.steps.size())));
}

void addComparison(ReportDocument& doc, const Comparison& comparison, const Results& results) {
    const AbComparison& c = comparison.ab;
    const RunAnalysis& b = results.baselineOf(comparison);
    const RunAnalysis& o = results.optimizedOf(comparison);
    doc.heading(2,
                plain("Before / after: ") + code(c.toggle) +
                    plain(fmt::format(" (run {} vs run {})", c.baselineRun, c.optimizedRun)),
                comparisonAnchor(c));
    doc.figure(Figure{FigureKind::kPhaseBars,
                      fmt::format("Grey: baseline (run {}), blue: optimized (run {}); medians of "
                                  "the measured steps, speedup with its 95% interval.",
                                  c.baselineRun, c.optimizedRun),
                      nullptr, &c});
    Table metrics{{{"metric (median ms)", Align::kLeft},
                   {"baseline"},
                   {"optimized"},
                   {"speedup [95% CI]", Align::kLeft}}};
    for (const MetricComparison& m : c.metrics) {
        metrics.rows.push_back({plain(m.name()), plain(fmt::format("{:.3f}", m.baseline)),
                                plain(fmt::format("{:.3f}", m.optimized)), plain(speedupText(m))});
    }
    doc.table(std::move(metrics));
    if (c.target)
        doc.paragraph(bold("Target:") + plain(" ") + foreign(targetVerdictText(*c.target)) +
                      plain("."));
    doc.paragraph(bold("End to end:") + plain(" ") + foreign(endToEndVerdictText(c)) + plain("."));
    if (const std::string load = loadDriftText(c); !load.empty())
        doc.paragraph(bold("Machine load:") + plain(" ") + foreign(load) + plain("."));
    const MetricComparison* primary = c.metric(c.primaryMetric);
    Text verdict;
    if (!c.target && primary != nullptr) {
        verdict = plain(fmt::format("Verdict on {}: ", toString(c.primaryMetric))) +
                  foreign(verdictText(c.verdict(), *primary)) + plain(". ");
    }
    doc.paragraph(verdict + plain("Loss ") + lossCell(c) + plain(" at every step."));
    bool varies = false;
    for (const CounterComparison& k : c.counters)
        varies = varies || !(k.baselineConstant && k.optimizedConstant);
    Table counters{{{"counter (per step)", Align::kLeft}, {"baseline"}, {"optimized"}}};
    if (varies) counters.columns.push_back({"", Align::kLeft});
    for (const CounterComparison& k : c.counters) {
        counters.rows.push_back(
            {code(k.name), plain(countText(k.baseline)), plain(countText(k.optimized))});
        if (varies) {
            counters.rows.back().push_back(
                plain(k.baselineConstant && k.optimizedConstant ? "" : "varies per step"));
        }
    }
    if (!counters.rows.empty()) doc.table(std::move(counters));
    addSideFigures(doc, b.analysis, o.analysis);
    addSyncsByOp(doc, b.analysis.syncPoints, o.analysis.syncPoints);
    addRankPairs(doc, comparison, results);
}

}  // namespace

ReportDocument buildReportDocument(const Results& results) {
    ReportDocument doc;
    addTitle(doc, results);
    addVerdictTable(doc, results);
    addRunList(doc, results);
    for (const Comparison& c : results.comparisons) addComparison(doc, c, results);
    for (const RankSet* set : rankSetsShownAlone(results)) addRankSet(doc, *set, results);
    // Every run's step bars to one scale, so the runs of a report compare at a glance.
    TimestampNs widest = 0;
    TimestampNs widestNonMath = 0;
    for (const RunAnalysis& r : results.runs) {
        for (const GlueStep& s : r.analysis.glue.steps) {
            widest = std::max(widest, s.wallNs);
            widestNonMath = std::max(widestNonMath, s.wallNs - s.part(GluePart::kMath));
        }
    }
    for (const RunAnalysis& r : results.runs) addRunSections(doc, r, widest, widestNonMath);
    return doc;
}

}  // namespace glueprof
