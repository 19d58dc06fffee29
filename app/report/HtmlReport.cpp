// The HTML rendering of the trace report: one self-contained file, charts as inline SVG, no scripts
// and no network. Colours come from Palette.h, shared with the GUI.
#include <fmt/format.h>

#include <set>

#include <algorithm>

#include "app/report/Escape.h"
#include "app/report/Findings.h"
#include "app/report/HtmlReport.h"

#include "app/report/Palette.h"
#include "app/report/RankText.h"
#include "app/report/VerdictText.h"
#include "profiler/core/CountText.h"
#include "profiler/core/Diagnostics.h"
#include "profiler/core/TextEncoding.h"

namespace glueprof {

namespace {

constexpr int kChartWidth = 760;
constexpr int kLabelWidth = 170;

std::string phaseBars(const AbComparison& c) {
    double top = 0.0;
    for (const MetricComparison& m : c.metrics) top = std::max({top, m.baseline, m.optimized});
    if (top <= 0) return {};
    const int rowHeight = 44;
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"phase times before and "
        "after\">\n",
        kChartWidth, rowHeight * static_cast<int>(c.metrics.size()) + 10);
    int y = 5;
    for (const MetricComparison& m : c.metrics) {
        const double scale = (kChartWidth - kLabelWidth - 330) / top;  // room for the label
        svg += fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">{}</text>\n", y + 24,
                           escapeMarkup(m.name()));
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"16\" fill=\"{}\"><title>baseline "
            "{:.3f} ms</title></rect>\n",
            kLabelWidth, y, std::max(1.0, m.baseline * scale), cssColour(kBaselineColour),
            m.baseline);
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"16\" fill=\"{}\"><title>optimized "
            "{:.3f} ms</title></rect>\n",
            kLabelWidth, y + 18, std::max(1.0, m.optimized * scale), cssColour(kOptimizedColour),
            m.optimized);
        svg += fmt::format(
            "<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{:.3f} / {:.3f} ms &#8594; {}</text>\n",
            kLabelWidth + std::max(m.baseline, m.optimized) * scale + 6, y + 24, m.baseline,
            m.optimized, escapeMarkup(speedupText(m)));
        y += rowHeight;
    }
    return svg + "</svg>\n";
}

std::string legend() {
    std::string html = "<p class=\"legend\">";
    for (std::size_t p = 0; p < kGluePartCount; ++p) {
        const auto part = static_cast<GluePart>(p);
        html += fmt::format("<span><i style=\"background:{}\"></i>{}</span> ",
                            cssColour(partColour(part)), toString(part));
    }
    return html + "</p>\n";
}

// One part of a step's bar, with its time as the tooltip.
std::string partRect(double x, int y, double width, GluePart part, TimestampNs ns) {
    return fmt::format(
        "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"14\" fill=\"{}\"><title>{} "
        "{:.3f} ms</title></rect>\n",
        x, y, width, cssColour(partColour(part)), toString(part), static_cast<double>(ns) / 1e6);
}

std::string glueBars(const RunAnalysis& r, TimestampNs widest) {
    const std::vector<GlueStep>& steps = r.analysis.glue.steps;
    if (steps.empty() || widest <= 0) return "<p>No measured steps.</p>\n";
    const int rowHeight = 18;
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"glue breakdown per step\">\n",
        kChartWidth, rowHeight * static_cast<int>(steps.size()) + 4);
    const double scale =
        static_cast<double>(kChartWidth - kLabelWidth - 90) / static_cast<double>(widest);
    int y = 2;
    for (const GlueStep& s : steps) {
        svg +=
            fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">step {}</text>\n", y + 12, s.step);
        double x = kLabelWidth;
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            const double w = static_cast<double>(s.partNs[p]) * scale;
            if (w <= 0) continue;
            svg += partRect(x, y, w, static_cast<GluePart>(p), s.partNs[p]);
            x += w;
        }
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{:.2f} ms</text>\n", x + 4,
                           y + 12, static_cast<double>(s.wallNs) / 1e6);
        y += rowHeight;
    }
    return svg + "</svg>\n";
}

// The step outside the math, to its own scale: math folded into one labelled segment of fixed
// width (not to scale), then glue, copy, sync wait and idle scaled to the widest non-math step of
// the report, so a 1% share is as readable as the math.
std::string nonMathBars(const RunAnalysis& r, TimestampNs widestNonMath) {
    const std::vector<GlueStep>& steps = r.analysis.glue.steps;
    if (steps.empty() || widestNonMath <= 0) return {};
    const int rowHeight = 18;
    const double mathWidth = 110.0;
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"non-math parts per step\">\n",
        kChartWidth, rowHeight * static_cast<int>(steps.size()) + 4);
    const double scale =
        (kChartWidth - kLabelWidth - mathWidth - 160) / static_cast<double>(widestNonMath);
    const auto math = static_cast<std::size_t>(GluePart::kMath);
    int y = 2;
    for (const GlueStep& s : steps) {
        svg +=
            fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">step {}</text>\n", y + 12, s.step);
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{:.0f}\" height=\"14\" fill=\"{}\" opacity=\"0.35\">"
            "<title>math {:.3f} ms (not to scale)</title></rect>\n<text x=\"{}\" y=\"{}\" "
            "class=\"value\">math {:.1f} ms</text>\n",
            kLabelWidth, y, mathWidth - 4, cssColour(partColour(GluePart::kMath)),
            static_cast<double>(s.partNs[math]) / 1e6, kLabelWidth + 3, y + 11,
            static_cast<double>(s.partNs[math]) / 1e6);
        double x = kLabelWidth + mathWidth;
        TimestampNs outside = 0;
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            if (p == math) continue;
            outside += s.partNs[p];
            const double w = static_cast<double>(s.partNs[p]) * scale;
            if (w <= 0) continue;
            svg += partRect(x, y, w, static_cast<GluePart>(p), s.partNs[p]);
            x += w;
        }
        svg += fmt::format(
            "<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{:.3f} ms outside math</text>\n", x + 4,
            y + 12, static_cast<double>(outside) / 1e6);
        y += rowHeight;
    }
    return svg + "</svg>\n";
}

std::string syncByLayer(const RunAnalysis& r) {
    const std::vector<SyncGroup>& groups = r.analysis.syncPoints.byLayer;
    if (groups.empty()) return "<p>No sync points in the measured steps.</p>\n";
    std::int64_t top = 1;
    for (const SyncGroup& g : groups) top = std::max(top, g.count);
    const int rowHeight = 18;
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"sync points per layer\">\n",
        kChartWidth, rowHeight * static_cast<int>(groups.size()) + 4);
    int y = 2;
    for (const SyncGroup& g : groups) {
        const double w = static_cast<double>(g.count) * (kChartWidth - kLabelWidth - 60) /
                         static_cast<double>(top);
        svg += fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">{}</text>\n", y + 12,
                           escapeMarkup(g.key));
        svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"14\" fill=\"{}\"/>\n",
                           kLabelWidth, y, w, cssColour(kSyncColour));
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"value\">{}</text>\n",
                           kLabelWidth + w + 4, y + 12, g.count);
        y += rowHeight;
    }
    return svg + "</svg>\n";
}

// Long kernel names (templated CUDA kernels run to kilobytes) shortened for a table cell, never
// inside a UTF-8 character.
std::string shortCellName(const std::string& name) { return shortenedText(name, 100); }

// GPU runs: each host sync of the measured steps (the first 20) with the work it waits for, and
// the host work that ran while the device idled.
std::string hostSyncs(const RunAnalysis& r) {
    const SyncPointsResult& s = r.analysis.syncPoints;
    std::string html;
    if (s.hostSyncsCaptured && s.hostSyncs.empty()) {
        html += "<h3>Host syncs on the GPU</h3>\n<p>None in the measured steps.</p>\n";
    } else if (s.hostSyncsCaptured) {
        html += fmt::format(
            "<h3>Host syncs on the GPU</h3>\n<p>{:g} per step, blocking {:.3f} ms per step.</p>\n"
            "<table><tr><th>step</th><th>op</th><th>awaited device work</th><th>ms</th></tr>\n",
            s.medianHostSyncsPerStep, s.medianSyncBlockedMs);
        constexpr std::size_t kShown = 20;
        for (std::size_t i = 0; i < s.hostSyncs.size() && i < kShown; ++i) {
            const SyncPoint& p = s.hostSyncs[i];
            html += fmt::format(
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{:.3f}</td></tr>\n", p.step,
                escapeMarkup(p.op),
                p.awaited.empty() ? "(none launched)"
                                  : "<code>" + escapeMarkup(shortCellName(p.awaited)) + "</code>",
                static_cast<double>(p.durationNs) / 1e6);
        }
        html += "</table>\n";
        if (s.hostSyncs.size() > kShown)
            html += fmt::format("<p>({} more)</p>\n", s.hostSyncs.size() - kShown);
    }
    const std::vector<GapWork>& gaps = r.analysis.glue.gapWork;
    if (!gaps.empty()) {
        html +=
            "<h3>Host work while the device idled (per step)</h3>\n<table><tr><th>host "
            "op</th><th>ms</th><th>count</th></tr>\n";
        for (const GapWork& w : gaps) {
            html += fmt::format("<tr><td><code>{}</code></td><td>{:.3f}</td><td>{}</td></tr>\n",
                                escapeMarkup(shortCellName(w.name)), w.msPerStep,
                                countText(w.countPerStep));
        }
        html += "</table>\n";
    }
    return html;
}

std::string overlapStrip(const RunAnalysis& r) {
    if (r.strip.copies.empty() || r.strip.endNs <= r.strip.startNs) return {};
    const double scale = static_cast<double>(kChartWidth - 10) /
                         static_cast<double>(r.strip.endNs - r.strip.startNs);
    auto x = [&](TimestampNs t) { return 5.0 + static_cast<double>(t - r.strip.startNs) * scale; };
    std::string svg = fmt::format(
        "<svg width=\"{}\" height=\"46\" role=\"img\" aria-label=\"copies of step {}\">\n"
        "<rect x=\"5\" y=\"4\" width=\"{}\" height=\"26\" fill=\"#F2F2F2\"/>\n",
        kChartWidth, r.strip.step, kChartWidth - 10);
    for (const CopySpan& c : r.strip.copies) {
        svg += fmt::format(
            "<rect x=\"{:.2f}\" y=\"4\" width=\"{:.2f}\" height=\"26\" fill=\"{}\"><title>{} "
            "{:.3f} ms (exposed part red)</title></rect>\n",
            x(c.startNs), std::max(0.5, x(c.endNs) - x(c.startNs)), cssColour(kExposedColour),
            escapeMarkup(c.name), static_cast<double>(c.endNs - c.startNs) / 1e6);
        for (const auto& [start, end] : c.covered) {
            svg += fmt::format(
                "<rect x=\"{:.2f}\" y=\"4\" width=\"{:.2f}\" height=\"26\" fill=\"{}\"/>\n",
                x(start), std::max(0.5, x(end) - x(start)), cssColour(kCoveredColour));
        }
    }
    svg += fmt::format(
        "<text x=\"5\" y=\"44\" class=\"value\">step {}: {:.2f} ms; copies green where compute "
        "covered them, red where exposed</text>\n",
        r.strip.step, static_cast<double>(r.strip.endNs - r.strip.startNs) / 1e6);
    return svg + "</svg>\n";
}

std::string gantt(const RunAnalysis& r) {
    if (r.gantt.bars.empty()) return {};
    TimestampNs start = r.gantt.bars.front().startNs;
    TimestampNs end = r.gantt.bars.front().endNs;
    for (const GanttBar& b : r.gantt.bars) {
        start = std::min(start, b.startNs);
        end = std::max(end, b.endNs);
    }
    if (end <= start) return {};
    const int rowHeight = 20;
    const double scale =
        static_cast<double>(kChartWidth - kLabelWidth - 10) / static_cast<double>(end - start);
    std::string svg =
        fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"pipeline Gantt\">\n",
                    kChartWidth, rowHeight * static_cast<int>(r.gantt.workers.size()) + 4);
    for (std::size_t w = 0; w < r.gantt.workers.size(); ++w) {
        svg +=
            fmt::format("<text x=\"0\" y=\"{}\" class=\"label\">{}</text>\n",
                        2 + rowHeight * static_cast<int>(w) + 13, escapeMarkup(r.gantt.workers[w]));
    }
    for (const GanttBar& b : r.gantt.bars) {
        svg += fmt::format(
            "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"16\" fill=\"{}\" "
            "stroke=\"#000\" stroke-width=\"0.2\"><title>{}</title></rect>\n",
            kLabelWidth + static_cast<double>(b.startNs - start) * scale,
            2 + rowHeight * static_cast<int>(b.worker),
            std::max(0.5, static_cast<double>(b.endNs - b.startNs) * scale),
            cssColour(pipelineKindColour(b.kind)), escapeMarkup(b.kind));
    }
    return svg + "</svg>\n";
}

// Each toggle's two verdicts in one table, before the sections: what the whole A/B suite found.
std::string summaryTable(const Results& results) {
    std::string html =
        "<h2>Every toggle</h2>\n<table class=\"summary\"><tr><th>toggle</th><th>target</th>"
        "<th>end to end</th>"
        "<th>counters that changed (per step)</th><th>loss</th></tr>\n";
    for (const Comparison& comparison : results.comparisons) {
        const AbComparison& c = comparison.ab;
        std::string changed;
        for (const CounterComparison& k : c.counters) {
            if (k.baseline == k.optimized) continue;
            changed +=
                fmt::format("{}<code>{}</code> {} &#8594; {}", changed.empty() ? "" : ", ",
                            escapeMarkup(k.name), countText(k.baseline), countText(k.optimized));
        }
        html += fmt::format(
            "<tr><td><a href=\"#ab-{}\"><code>{}</code></a></td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td></tr>\n",
            c.optimizedRun, escapeMarkup(c.toggle),
            c.target ? escapeMarkup(targetVerdictText(*c.target)) : "-",
            escapeMarkup(endToEndVerdictText(c)), changed.empty() ? "-" : changed,
            !c.lossRecorded ? "not recorded"
            : c.lossEqual   ? "bit-identical"
                            : "<b>differs</b>");
    }
    for (const SkippedComparison& skipped : results.skipped) {
        html += fmt::format("<tr><td><code>{}</code></td><td colspan=\"4\">skipped: {}</td></tr>\n",
                            escapeMarkup(skipped.toggle), escapeMarkup(skipped.reason));
    }
    return html + "</table>\n";
}

std::string htmlComparisonSection(const AbComparison& c) {
    // With a target, its verdict and the end-to-end one are the A/B's verdicts; without one, the
    // primary metric's is.
    const MetricComparison* primary = c.metric(c.primaryMetric);
    const std::string primaryVerdict =
        c.target || primary == nullptr
            ? std::string()
            : fmt::format(" Verdict on {}: <b>{}</b>.", toString(c.primaryMetric),
                          escapeMarkup(verdictText(c.verdict(), *primary)));
    std::string html = fmt::format(
        "<h2 id=\"ab-{}\">Before / after: <code>{}</code></h2>\n<p>Grey: baseline (run {}), blue: "
        "optimized (run {}); medians of the measured steps, speedup with its 95% interval.{} Loss "
        "{} at every step.</p>\n{}<p><b>End to end:</b> {}.</p>\n",
        c.optimizedRun, escapeMarkup(c.toggle), c.baselineRun, c.optimizedRun, primaryVerdict,
        !c.lossRecorded ? "not recorded"
        : c.lossEqual   ? "bit-identical"
                        : "<b>differs</b>",
        c.target ? "<p><b>Target:</b> " + escapeMarkup(targetVerdictText(*c.target)) + ".</p>\n"
                 : std::string(),
        escapeMarkup(endToEndVerdictText(c)));
    if (const std::string load = loadDriftText(c); !load.empty())
        html += "<p><b>Machine load:</b> " + escapeMarkup(load) + ".</p>\n";
    html += phaseBars(c);
    // The counters: what the change did, counted (the same rows as the text and Markdown).
    if (!c.counters.empty()) {
        html +=
            "<h3>Counters per measured step (medians)</h3>\n<table><tr><th>counter</th>"
            "<th>baseline</th><th>optimized</th><th></th></tr>\n";
        for (const CounterComparison& k : c.counters) {
            html +=
                fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                            escapeMarkup(k.name), countText(k.baseline), countText(k.optimized),
                            k.baselineConstant && k.optimizedConstant ? "" : "varies per step");
        }
        html += "</table>\n";
    }
    return html;
}

// A data-parallel A/B's ranks: each rank's arms compared, and the ranks side by side per arm.
std::string htmlRankTable(const Comparison& comparison, const Results& results) {
    const RankPairsView view = rankPairsOf(comparison, results);
    if (view.ranks.empty()) return "";
    std::string html = fmt::format(
        "<h3>Ranks ({} processes, data parallel)</h3>\n<p>The verdict above is rank {}'s; each "
        "rank's arms compared here. Overlap is HTA's |comm &#8745; compute| / |comm|.</p>\n"
        "<table><tr><th>rank</th><th>step ms</th><th>step speedup [95% CI]</th><th>exposed comm "
        "ms</th><th>comm/compute overlap</th><th>loss</th><th>clock</th></tr>\n",
        view.baseline->worldSize, view.judgedRank);
    for (const RankPairView& rank : view.ranks) {
        const MetricComparison* step = rank.ab->metric(TimingMetric::kStep);
        html += fmt::format(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.3f} &#8594; {:.3f}</td><td>{} &#8594; "
            "{}</td><td>{}</td><td class=\"label\">{}</td></tr>\n",
            rank.rank,
            step != nullptr ? fmt::format("{:.3f} &#8594; {:.3f}", step->baseline, step->optimized)
                            : "-",
            step != nullptr ? escapeMarkup(speedupText(*step)) : "-",
            rank.baseline->medianPartMs(GluePart::kComm),
            rank.optimized->medianPartMs(GluePart::kComm), overlapRatioText(rank.baselineOverlap),
            overlapRatioText(rank.optimizedOverlap),
            rank.ab->lossEqual ? "bit-identical" : "<b>differs</b>",
            escapeMarkup(clockAlignmentText(*rank.optimized)));
    }
    html += fmt::format(
        "</table>\n<p>Spread per step (slowest rank &#8722; median rank) {:.3f} &#8594; {:.3f} ms; "
        "straggler time (a step's worst collective) {:.3f} &#8594; {:.3f} ms.</p>\n",
        view.baseline->analysis.medianSpreadMs, view.optimized->analysis.medianSpreadMs,
        view.baseline->analysis.medianStragglerMs, view.optimized->analysis.medianStragglerMs);
    return html;
}

// A data-parallel run's ranks side by side.
std::string htmlRankSetSection(const RankSet& set, const Results& results) {
    const RankAnalysisResult& a = set.analysis;
    std::string html = fmt::format(
        "<h2>Ranks of run {} ({} processes, data parallel)</h2>\n<table><tr><th>rank</th>"
        "<th>run</th><th>median step ms</th><th>exposed comm ms</th><th>comm/compute "
        "overlap</th><th>slowest in</th><th>clock</th></tr>\n",
        results.runs[set.runs.front()].run.id, set.worldSize);
    for (const RankRowView& row : rankRowsOf(set, results)) {
        html += fmt::format(
            "<tr><td>{}</td><td>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{}</td><td>{} "
            "step(s)</td><td class=\"label\">{}</td></tr>\n",
            row.rank, row.run->run.id, row.run->analysis.steps.medianWallMs,
            row.run->medianPartMs(GluePart::kComm), overlapRatioText(row.overlap), row.slowestCount,
            escapeMarkup(clockAlignmentText(*row.run)));
    }
    return html + fmt::format(
                      "</table>\n<p>Spread per step (slowest rank &#8722; median rank) {:.3f} ms; "
                      "straggler time (a step's worst collective) {:.3f} ms, over {} measured "
                      "steps.</p>\n",
                      a.medianSpreadMs, a.medianStragglerMs, a.steps.size());
}

// Losses (the capture missed something) in red; what an import skipped or derived as notes.
std::string diagnosticsBoxes(const RunAnalysis& r) {
    std::string html;
    for (const bool losses : {true, false}) {
        std::string items;
        for (const Diagnostic& d : r.diagnostics) {
            if (isLoss(d.name) != losses) continue;
            items += fmt::format("<li><code>{}</code> = {}: {}</li>\n", escapeMarkup(d.name),
                                 d.value, escapeMarkup(d.detail));
        }
        if (items.empty()) continue;
        html += fmt::format("<div class=\"{}\"><strong>Run {} {}:</strong><ul>\n{}</ul></div>\n",
                            losses ? "diagnostics" : "notes", r.run.id,
                            losses ? "lost something" : "notes", items);
    }
    return html;
}

// HTA's launch statistics (the distributions and the longest delays), its launch queue per stream
// and its user-annotation breakdowns (the largest names, the rest as "others").
std::string launchQueueAndAnnotationTables(const AnalysisResult& a) {
    std::string html;
    const PerLaunchStats& p = a.launches.perLaunch;
    if (p.paired > 0) {
        html += fmt::format(
            "<h3>Kernel launches (HTA's launch statistics, whole run)</h3>\n<p>{} launches paired "
            "with device work; {} ran shorter on the GPU than their call; {} calls over {} µs, {} "
            "launch delays over {} µs.</p>\n<table><tr><th>µs</th><th>p50</th><th>p90</th>"
            "<th>p99</th><th>max</th></tr>\n",
            p.paired, p.gpuShorterThanCpu, p.longCalls, kLaunchCallOutlierNs / 1000, p.longDelays,
            kLaunchDelayOutlierNs / 1000);
        for (const auto& [name, q] : p.distributions())
            html += fmt::format(
                "<tr><td>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td></"
                "tr>\n",
                name, q->p50, q->p90, q->p99, q->max);
        html += "</table>\n";
        if (!p.longestDelays.empty()) {
            html +=
                "<p>The longest launch delays:</p>\n<table><tr><th>call</th><th>device work</th>"
                "<th>delay µs</th></tr>\n";
            for (const LaunchPair& x : p.longestDelays)
                html += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.3f}</td></tr>\n",
                                    escapeMarkup(x.call), escapeMarkup(shortenedText(x.work, 90)),
                                    static_cast<double>(x.launchDelayNs) / 1e3);
            html += "</table>\n";
        }
    }
    if (!a.queues.streams.empty()) {
        html += fmt::format(
            "<h3>Launch queue by stream (HTA's queue length)</h3>\n<p>Operations enqueued and not "
            "yet started; at {} the host blocks in the launch call.</p>\n<table><tr><th>stream"
            "</th><th>mean</th><th>time-weighted mean</th><th>max</th><th>ms at a full queue</th>"
            "</tr>\n",
            a.queues.capacity);
        for (const StreamQueueLength& s : a.queues.streams)
            html += fmt::format(
                "<tr><td>{}</td><td>{:.2f}</td><td>{:.2f}</td><td>{}</td><td>{:.3f}</td></tr>\n",
                escapeMarkup(s.lane), s.mean, s.timeWeightedMean, s.max,
                static_cast<double>(s.atFullQueueNs) / 1e6);
        html += "</table>\n";
    }
    constexpr std::size_t kShownAnnotationRows = 10;
    const auto annotations = [&](const char* title, const std::vector<NamedDurations>& names) {
        if (names.empty()) return;
        html += fmt::format(
            "<h3>{} (HTA's user-annotation breakdown)</h3>\n<table><tr><th>annotation</th>"
            "<th>count</th><th>ms</th><th>mean µs</th><th>max µs</th></tr>\n",
            title);
        for (const NamedDurations& d : topWithOthers(names, kShownAnnotationRows))
            html += fmt::format(
                "<tr><td>{}</td><td>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td></tr>\n",
                escapeMarkup(shortenedText(d.name, 90)), d.count, static_cast<double>(d.ns) / 1e6,
                d.meanNs / 1e3, static_cast<double>(d.maxNs) / 1e3);
        html += "</table>\n";
    };
    annotations("GPU annotations", a.annotations.gpu);
    annotations("CPU annotations", a.annotations.cpu);
    return html;
}

// The device timeline (HTA's temporal breakdown, TraceLens's GPU timeline), HTA's idle-time
// breakdown per device stream (whole run), and the ops every layer issues.
std::string idleAndLayerTables(const AnalysisResult& a) {
    std::string html;
    if (a.timeline.hasDeviceWork) {
        const HtaTemporalBreakdown& t = a.timeline.temporal;
        const GpuTimeline& g = a.timeline.timeline;
        const auto ms = [](TimestampNs ns) { return static_cast<double>(ns) / 1e6; };
        const auto pct = [](TimestampNs part, TimestampNs whole) {
            return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
        };
        html += fmt::format(
            "<h3>Device timeline (whole run)</h3>\n<p>HTA's temporal breakdown: kernel time "
            "{:.3f} ms, idle {:.1f}%, compute {:.1f}%, non-compute {:.1f}%{}.</p>\n<table><tr>"
            "<th>TraceLens GPU timeline</th><th>ms</th><th>% of total</th></tr>\n",
            ms(t.kernelNs), pct(t.idleNs, t.kernelNs), pct(t.computeNs, t.kernelNs),
            pct(t.nonComputeNs, t.kernelNs),
            a.timeline.commComputeOverlapPct
                ? fmt::format("; comm/compute overlap {:.2f}%", *a.timeline.commComputeOverlapPct)
                : std::string());
        for (const auto& [name, ns] : g.rows())
            html += fmt::format("<tr><td>{}</td><td>{:.3f}</td><td>{:.1f}</td></tr>\n", name,
                                ms(ns), pct(ns, g.totalNs));
        html += "</table>\n";
        if (!a.kernels.byType.empty())
            html += fmt::format("<p>Kernel time by HTA's kernel type: {}.</p>\n",
                                escapeMarkup(a.kernels.typeShareText()));
        const KernelMix& mix = a.timeline.kernels;
        html += fmt::format(
            "<p>Kernels by category (TraceLens's): {} of {} kernels run under 10 µs ({:.3f} "
            "ms).</p>\n<table><tr><th>category</th><th>count</th><th>ms</th><th>% of time</th>"
            "</tr>\n",
            mix.shortKernels, mix.kernels, ms(mix.shortKernelNs));
        for (std::size_t c = 0; c < mix.byCategory.size(); ++c) {
            const KernelCategoryTime& k = mix.byCategory[c];
            if (k.count == 0) continue;
            html += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.3f}</td><td>{:.1f}</td></tr>\n",
                                toString(static_cast<KernelCategory>(c)), k.count, ms(k.ns),
                                pct(k.ns, mix.ns));
        }
        html += "</table>\n";
    }
    if (!a.idle.empty()) {
        html +=
            "<h3>Device idle time by stream (HTA's breakdown, whole "
            "run)</h3>\n<table><tr><th>stream"
            "</th><th>busy ms</th><th>host wait ms</th><th>kernel wait ms</th><th>other ms</th>"
            "</tr>\n";
        for (const StreamIdle& s : a.idle) {
            html += fmt::format(
                "<tr><td>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td></"
                "tr>\n",
                escapeMarkup(s.lane), static_cast<double>(s.busyNs) / 1e6,
                static_cast<double>(s.hostWaitNs) / 1e6, static_cast<double>(s.kernelWaitNs) / 1e6,
                static_cast<double>(s.otherNs) / 1e6);
        }
        html += "</table>\n";
    }
    const PerLayerWorkResult& work = a.perLayer;
    if (!work.ops.empty() && !work.layerRanges.empty()) {
        html += fmt::format(
            "<h3>Per-layer work</h3>\n<p>{:g} layers ({}) per step, {:.3f} ms of host time, "
            "{:.3f} ms of it in ops that are not math.</p>\n<table><tr><th>op</th><th>per layer"
            "</th><th>per step</th><th>ms per step</th><th>kind</th></tr>\n",
            work.layersPerStep, escapeMarkup(work.layerRanges.front()), work.layersMsPerStep,
            work.glueMsPerStep);
        constexpr std::size_t kShown = 20;
        for (const PerLayerOp* op : opsGlueFirst(work, kShown)) {
            html += fmt::format(
                "<tr><td><code>{}</code></td><td>{:g}</td><td>{:g}</td><td>{:.3f}</td>"
                "<td>{}</td></tr>\n",
                escapeMarkup(op->op), op->perLayer, op->perStep, op->msPerStep, op->kind);
        }
        html += "</table>\n";
    }
    return html;
}

std::string htmlRunSection(const RunAnalysis& r, TimestampNs widest, TimestampNs widestNonMath) {
    const AnalysisResult& a = r.analysis;
    std::string html =
        fmt::format("<h2>Run {} <code>{}</code></h2>\n", r.run.id, escapeMarkup(r.run.label));
    html += diagnosticsBoxes(r);
    html += fmt::format("<h3>Where each step's time goes</h3>\n<p>{}.</p>\n",
                        escapeMarkup(partsMeaning(r.analysis.glue))) +
            legend() + glueBars(r, widest);
    if (!r.analysis.glue.steps.empty()) {
        html += "<h3>Outside the math (to its own scale)</h3>\n" + nonMathBars(r, widestNonMath);
    }
    html += fmt::format("<h3>Sync points per layer (in all, over the {} measured steps)</h3>\n",
                        r.analysis.steps.measured.size()) +
            syncByLayer(r);
    html += hostSyncs(r);
    if (a.copyOverlap.total.copies > 0) {
        html += fmt::format(
            "<h3>Copy/compute overlap</h3>\n<p>Overlap ratio {:.3f}; exposed copy {:.3f} ms per "
            "step "
            "over {} copies.</p>\n",
            a.copyOverlap.total.overlapRatio(), a.copyOverlap.exposedMsPerStep(),
            a.copyOverlap.total.copies);
        html += overlapStrip(r);
    }
    if (a.bubbles.workers > 0) {
        html += fmt::format("<h3>Pipeline</h3>\n<p>{} workers, bubble ratio {:.2f}% ({}).</p>\n",
                            a.bubbles.workers, 100 * a.bubbles.ratio, a.bubbles.breakdownText());
        html += gantt(r);
    }
    html += idleAndLayerTables(a);
    html += launchQueueAndAnnotationTables(a);
    html += "<h3>Advisor</h3>\n";
    if (a.findings.empty()) html += fmt::format("<p>{}.</p>\n", escapeMarkup(kNoFindingsText));
    html += "<ul>\n";
    for (const Finding& f : a.findings) {
        html += fmt::format(
            "<li><b>{}</b> ({}, up to {:.3f} ms per step): {}</li>\n", escapeMarkup(f.rule),
            f.toggle.empty() ? "no toggle yet" : "try <code>" + escapeMarkup(f.toggle) + "</code>",
            f.savingMsPerStep, escapeMarkup(f.evidence));
    }
    return html + "</ul>\n";
}

}  // namespace

std::string renderResultsHtml(const Results& results) {
    std::string html =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>glueprof "
        "report</title>\n"
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "h1,h2,h3{font-weight:600}table{border-collapse:collapse}td,th{border:1px solid "
        "#ccc;padding:3px 8px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}.label{font-size:12px}.value{font-size:11px;"
        "fill:#444}"
        ".legend span{margin-right:10px;font-size:12px}.legend "
        "i{display:inline-block;width:10px;height:10px;margin-right:4px}"
        ".diagnostics{background:#FDECEA;border:1px solid "
        "#C0504D;padding:8px}.notes{background:#f4f4f4;border:1px solid #ccc;padding:8px}"
        "code{background:#f4f4f4}td code{word-break:break-all}.summary td code{word-break:normal;"
        "white-space:nowrap}.summary td,.summary "
        "th{text-align:left;"
        "vertical-align:top;font-size:14px;line-height:1.5}</style>\n"
        "</head><body>\n<h1>glueprof report</h1>\n<ul>\n";
    TimestampNs widest = 0;
    TimestampNs widestNonMath = 0;
    for (const RunAnalysis& r : results.runs) {
        html += fmt::format(
            "<li>run {} <code>{}</code>: preset <code>{}</code> on <code>{}</code>, {}</li>\n",
            r.run.id, escapeMarkup(r.run.label), escapeMarkup(r.run.preset),
            escapeMarkup(r.run.device), escapeMarkup(r.run.displayStatus()));
        for (const GlueStep& s : r.analysis.glue.steps) {
            widest = std::max(widest, s.wallNs);
            widestNonMath = std::max(widestNonMath, s.wallNs - s.part(GluePart::kMath));
        }
    }
    html += "</ul>\n";
    // Losses (the capture missed something) in red; what an import skipped or derived as notes.
    if (results.comparisons.size() > 1) html += summaryTable(results);
    // Each comparison, then its two runs; then the runs of no comparison.
    std::set<std::size_t> shown;
    for (const Comparison& comparison : results.comparisons) {
        html += htmlComparisonSection(comparison.ab) + htmlRankTable(comparison, results);
        for (std::size_t index : {comparison.baseline, comparison.optimized}) {
            if (shown.insert(index).second)
                html += htmlRunSection(results.runs[index], widest, widestNonMath);
        }
    }
    for (const RankSet* set : rankSetsShownAlone(results))
        html += htmlRankSetSection(*set, results);
    for (std::size_t index = 0; index < results.runs.size(); ++index) {
        if (shown.count(index) == 0)
            html += htmlRunSection(results.runs[index], widest, widestNonMath);
    }
    return html + "</body></html>\n";
}

}  // namespace glueprof
