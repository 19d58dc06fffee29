#include "app/report/ResultsMarkdown.h"

#include "app/report/Escape.h"
#include "app/report/VerdictText.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/report/Findings.h"
#include "app/report/RankText.h"
#include "app/report/SyncComparison.h"
#include "profiler/core/CountText.h"
#include "profiler/core/TextEncoding.h"

namespace glueprof {

namespace {

// Trace-derived text as inline code: a backtick would end the span and is dropped; a line break
// would end the paragraph or the table row and becomes a space.
std::string code(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), '`'), text.end());
    std::replace(text.begin(), text.end(), '\n', ' ');
    std::replace(text.begin(), text.end(), '\r', ' ');
    return "`" + text + "`";
}

// The same in a table cell, where a pipe would end the cell (GFM splits cells before it reads code
// spans) and is escaped; in prose the escape would show.
std::string cellCode(const std::string& text) {
    std::string escaped;
    for (char c : code(text)) {
        if (c == '|') escaped += '\\';
        escaped += c;
    }
    return escaped;
}

// A trace-derived name short enough for a table cell.
std::string shortName(const std::string& name) { return shortenedText(name, 90); }

std::string stepText(std::int32_t step) { return step == kNoTag ? "-" : std::to_string(step); }

std::string header(const Results& results) {
    std::string md = "# glueprof report\n\n";
    if (results.setup) {
        md += fmt::format(
            "Preset {} on {}; {} block(s) of {} step(s) per arm, interleaved, after {} warm-up "
            "step(s).",
            code(results.preset()), code(results.device()), results.setup->repeats,
            results.setup->steps, results.setup->warmup);
    }
    if (!results.db.empty()) md += fmt::format(" Database: {}.", code(results.db));
    md += "\n\n";
    if (!results.gpuCapture().empty()) {
        md += fmt::format("GPU capture: {}.\n\n", code(results.gpuCapture()));
    }
    return md;
}

std::string verdictTable(const Results& results) {
    if (results.comparisons.empty() && results.skipped.empty()) return "";
    std::string md =
        "| toggle | target | end to end | verdict | primary metric | speedup [95% CI] | loss "
        "|\n|---|---|---|---|---|---|---|\n";
    for (const Comparison& comparison : results.comparisons) {
        const AbComparison& c = comparison.ab;
        const MetricComparison* m = c.metric(c.primaryMetric);
        md += fmt::format(
            "| {} | {} | {} | {} | {} | {} | {} |\n", cellCode(c.toggle),
            c.target ? escapeMarkdown(targetVerdictText(*c.target)) : "-",
            escapeMarkdown(endToEndVerdictText(c)),
            // With a target its verdict and the end-to-end one are the A/B's (docs/metrics.md).
            c.target       ? std::string("-")
            : m != nullptr ? escapeMarkdown(verdictText(c.verdict(), *m))
                           : escapeMarkdown(toString(c.verdict())),
            toString(c.primaryMetric), m != nullptr ? speedupText(*m) : "-",
            !c.lossRecorded ? "not recorded"
            : c.lossEqual   ? "bit-identical"
                            : "differs");
    }
    for (const SkippedComparison& s : results.skipped) {
        md += fmt::format("| {} | - | - | skipped | - | - | {} |\n", cellCode(s.toggle), s.reason);
    }
    return md;
}

std::string sideFigures(const AnalysisResult& b, const AnalysisResult& o) {
    std::string md;
    if (b.copyOverlap.total.copies > 0 || o.copyOverlap.total.copies > 0) {
        md += fmt::format(
            "\n| copies (per measured step) | baseline | optimized |\n|---|---:|---:|\n"
            "| copy ms | {:.3f} | {:.3f} |\n| exposed copy ms | {:.3f} | {:.3f} |\n"
            "| copy/compute overlap ratio | {:.3f} | {:.3f} |\n",
            b.copyOverlap.copyMsPerStep(), o.copyOverlap.copyMsPerStep(),
            b.copyOverlap.exposedMsPerStep(), o.copyOverlap.exposedMsPerStep(),
            b.copyOverlap.total.overlapRatio(), o.copyOverlap.total.overlapRatio());
    }
    if (b.bubbles.workers > 0 || o.bubbles.workers > 0) {
        md += fmt::format(
            "\n| pipeline (executed, per measured step) | baseline | optimized |\n|---|---:|---:|\n"
            "| workers | {} | {} |\n| makespan ms (median step) | {:.3f} | {:.3f} |\n"
            "| bubble ratio | {:.1f}% | {:.1f}% |\n",
            b.bubbles.workers, o.bubbles.workers, b.bubbles.medianStepMakespanMs(),
            o.bubbles.medianStepMakespanMs(), 100 * b.bubbles.ratio, 100 * o.bubbles.ratio);
        const auto before = b.bubbles.breakdown();
        const auto after = o.bubbles.breakdown();
        for (std::size_t k = 0; k < before.size() && k < after.size(); ++k) {
            md += fmt::format("| {} | {:.1f}% | {:.1f}% |\n", before[k].first,
                              100 * before[k].second, 100 * after[k].second);
        }
    }
    if (b.syncPoints.hostSyncsCaptured || o.syncPoints.hostSyncsCaptured) {
        md += fmt::format(
            "\nHost syncs captured on the GPU (CUPTI): {:g} -> {:g} per step, blocking {:.3f} -> "
            "{:.3f} ms per step.\n",
            b.syncPoints.medianHostSyncsPerStep, o.syncPoints.medianHostSyncsPerStep,
            b.syncPoints.medianSyncBlockedMs, o.syncPoints.medianSyncBlockedMs);
    }
    return md;
}

// Sync points per measured step of each op, baseline beside optimized.
std::string syncsByOp(const SyncPointsResult& b, const SyncPointsResult& o) {
    std::string md =
        "\n### Sync points per measured step, by op\n\n| op | baseline | optimized |\n"
        "|---|---:|---:|\n";
    for (const SyncOpPerStep& op : compareSyncPoints(b, o).opsPerStep) {
        md += fmt::format("| {} | {} | {} |\n", cellCode(op.op), countText(op.baseline),
                          countText(op.optimized));
    }
    return md;
}

// A data-parallel A/B's ranks: each rank's arms compared, and the ranks side by side per arm.
std::string rankTable(const Comparison& comparison, const Results& results) {
    const RankPairsView view = rankPairsOf(comparison, results);
    if (view.ranks.empty()) return "";
    std::string md = fmt::format(
        "\n### Ranks ({} processes, data parallel; the verdicts above are rank {}'s)\n\n"
        "| rank | runs | step ms (baseline → optimized) | step speedup [95% CI] | exposed comm ms "
        "| comm/compute overlap | loss | clock |\n|---|---|---|---|---|---|---|---|\n",
        view.baseline->worldSize, view.judgedRank);
    for (const RankPairView& rank : view.ranks) {
        const MetricComparison* step = rank.ab->metric(TimingMetric::kStep);
        md += fmt::format(
            "| {} | {} vs {} | {} | {} | {:.3f} → {:.3f} | {} → {} | {} | {} |\n", rank.rank,
            rank.ab->baselineRun, rank.ab->optimizedRun,
            step != nullptr ? fmt::format("{:.3f} → {:.3f}", step->baseline, step->optimized) : "-",
            step != nullptr ? speedupText(*step) : "-",
            rank.baseline->medianPartMs(GluePart::kComm),
            rank.optimized->medianPartMs(GluePart::kComm), overlapRatioText(rank.baselineOverlap),
            overlapRatioText(rank.optimizedOverlap),
            rank.ab->lossEqual ? "bit-identical" : "DIFFERS",
            escapeMarkdown(clockAlignmentText(*rank.optimized)));
    }
    md += fmt::format(
        "\nSpread per step (slowest rank − median rank): {:.3f} → {:.3f} ms. Straggler time (the "
        "worst collective of a step, last rank's start − first's): {:.3f} → {:.3f} ms.\n",
        view.baseline->analysis.medianSpreadMs, view.optimized->analysis.medianSpreadMs,
        view.baseline->analysis.medianStragglerMs, view.optimized->analysis.medianStragglerMs);
    return md;
}

// A data-parallel run's ranks side by side.
std::string rankSetSection(const RankSet& set, const Results& results) {
    const RankAnalysisResult& a = set.analysis;
    std::string md = fmt::format(
        "\n## Ranks of run {} ({} processes, data parallel)\n\n| rank | run | median step ms | "
        "exposed comm ms | comm/compute overlap | slowest in | clock |\n"
        "|---|---|---:|---:|---:|---:|---|\n",
        results.runs[set.runs.front()].run.id, set.worldSize);
    for (const RankRowView& row : rankRowsOf(set, results)) {
        const RunAnalysis& r = *row.run;
        md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {} | {} step(s) | {} |\n", row.rank,
                          r.run.id, r.analysis.steps.medianWallMs, r.medianPartMs(GluePart::kComm),
                          overlapRatioText(row.overlap), row.slowestCount,
                          escapeMarkdown(clockAlignmentText(r)));
    }
    md += fmt::format(
        "\nSpread per step (slowest rank − median rank): {:.3f} ms. Straggler time (the worst "
        "collective of a step, last rank's start − first's): {:.3f} ms, over {} measured steps.\n",
        a.medianSpreadMs, a.medianStragglerMs, a.steps.size());
    return md;
}

std::string comparisonSection(const Comparison& comparison, const Results& results) {
    const AbComparison& c = comparison.ab;
    const RunAnalysis& b = results.baselineOf(comparison);
    const RunAnalysis& o = results.optimizedOf(comparison);
    std::string md = fmt::format("\n## Before / after: {} (run {} vs run {})\n\n", code(c.toggle),
                                 c.baselineRun, c.optimizedRun);
    md += "| metric (median ms) | baseline | optimized | speedup [95% CI] |\n|---|---:|---:|---|\n";
    for (const MetricComparison& m : c.metrics) {
        md += fmt::format("| {} | {:.3f} | {:.3f} | {} |\n", m.name(), m.baseline, m.optimized,
                          speedupText(m));
    }
    if (c.target) md += fmt::format("\nTarget: {}.\n", targetVerdictText(*c.target));
    md += fmt::format("\nEnd to end: {}.\n", endToEndVerdictText(c));
    if (const std::string load = loadDriftText(c); !load.empty())
        md += fmt::format("\nMachine load: {}.\n", escapeMarkdown(load));
    const MetricComparison* primary = c.metric(c.primaryMetric);
    const std::string primaryVerdict =
        c.target || primary == nullptr
            ? std::string()
            : fmt::format("Verdict on {}: {}. ", toString(c.primaryMetric),
                          verdictText(c.verdict(), *primary));
    md += fmt::format("\n{}Loss {} at every step.\n", primaryVerdict,
                      !c.lossRecorded ? "not recorded"
                      : c.lossEqual   ? "bit-identical"
                                      : "DIFFERS");
    md += "\n| counter (per step) | baseline | optimized |\n|---|---:|---:|\n";
    for (const CounterComparison& k : c.counters) {
        md += fmt::format("| {} | {} | {} |\n", k.name, countText(k.baseline),
                          countText(k.optimized));
    }
    md += sideFigures(b.analysis, o.analysis);
    md += syncsByOp(b.analysis.syncPoints, o.analysis.syncPoints);
    return md + rankTable(comparison, results);
}

// HTA's idle-time breakdown of each device stream over the whole run (docs/metrics.md).
std::string idleBreakdown(const std::vector<StreamIdle>& streams) {
    if (streams.empty()) return "";
    std::string md =
        "\n### Device idle time by stream (HTA's breakdown, whole run)\n\n| stream | busy ms | "
        "host wait ms | kernel wait ms | other ms | gaps |\n|---|---:|---:|---:|---:|---:|\n";
    for (const StreamIdle& s : streams) {
        md += fmt::format("| {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {} |\n", cellCode(s.lane),
                          static_cast<double>(s.busyNs) / 1e6,
                          static_cast<double>(s.hostWaitNs) / 1e6,
                          static_cast<double>(s.kernelWaitNs) / 1e6,
                          static_cast<double>(s.otherNs) / 1e6, s.gaps);
    }
    return md;
}

// The device timeline as HTA and TraceLens define it, whole run (docs/metrics.md).
std::string deviceTimeline(const DeviceTimelineResult& d) {
    if (!d.hasDeviceWork) return "";
    const auto ms = [](TimestampNs ns) { return static_cast<double>(ns) / 1e6; };
    const auto pct = [](TimestampNs part, TimestampNs whole) {
        return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
    };
    const HtaTemporalBreakdown& t = d.temporal;
    const GpuTimeline& g = d.timeline;
    std::string md = fmt::format(
        "\n### Device timeline (whole run)\n\nHTA's temporal breakdown: kernel time {:.3f} ms, "
        "idle {:.3f} ms ({:.1f}%), compute {:.3f} ms ({:.1f}%), non-compute {:.3f} ms ({:.1f}%)",
        ms(t.kernelNs), ms(t.idleNs), pct(t.idleNs, t.kernelNs), ms(t.computeNs),
        pct(t.computeNs, t.kernelNs), ms(t.nonComputeNs), pct(t.nonComputeNs, t.kernelNs));
    md += d.commComputeOverlapPct
              ? fmt::format("; comm/compute overlap {:.2f}%.\n", *d.commComputeOverlapPct)
              : std::string(".\n");
    md += "\n| TraceLens GPU timeline | ms | % of total |\n|---|---:|---:|\n";
    for (const auto& [name, ns] : g.rows())
        md += fmt::format("| {} | {:.3f} | {:.1f} |\n", name, ms(ns), pct(ns, g.totalNs));
    const KernelMix& mix = d.kernels;
    md += fmt::format(
        "\nKernels by category (TraceLens's, whole run): {} kernels, copies and memsets, {:.3f} "
        "ms; "
        "{} of {} kernels run under 10 µs ({:.3f} ms).\n\n| category | count | ms | % of "
        "time |\n|---|---:|---:|---:|\n",
        mix.items, ms(mix.ns), mix.shortKernels, mix.kernels, ms(mix.shortKernelNs));
    for (std::size_t c = 0; c < mix.byCategory.size(); ++c) {
        const KernelCategoryTime& t = mix.byCategory[c];
        if (t.count == 0) continue;
        md +=
            fmt::format("| {} | {} | {:.3f} | {:.1f} |\n", toString(static_cast<KernelCategory>(c)),
                        t.count, ms(t.ns), pct(t.ns, mix.ns));
    }
    return md;
}

// HTA's kernel breakdown: time by kernel type, and the kernels that take it.
std::string kernelBreakdown(const KernelBreakdownResult& k) {
    if (k.byType.empty()) return "";
    std::string md = "\n### Kernels (HTA's breakdown, whole run)\n\n";
    for (const KernelTypeTime& t : k.byType)
        md += fmt::format("{}{} {:.3f} ms ({:.1f}%)", md.back() == '\n' ? "" : ", ", t.type,
                          static_cast<double>(t.ns) / 1e6, t.percent);
    md +=
        ".\n\n| type | kernel | count | ms | mean µs | min µs | max µs |\n"
        "|---|---|---:|---:|---:|---:|---:|\n";
    for (const KernelTime& t : k.kernels) {
        md += fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n", t.type,
                          cellCode(shortName(t.name)), t.count, static_cast<double>(t.ns) / 1e6,
                          t.meanNs / 1e3, static_cast<double>(t.minNs) / 1e3,
                          static_cast<double>(t.maxNs) / 1e3);
    }
    return md;
}

// Kernel launch statistics: the measured steps' kernels, and HTA's per-launch summary with the
// distributions and the outliers.
std::string launchStats(const LaunchStatsResult& l) {
    if (l.kernels == 0 && l.perLaunch.paired == 0) return "";
    const PerLaunchStats& p = l.perLaunch;
    std::string md = fmt::format(
        "\n### Kernel launches\n\nMeasured steps: {:g} kernels per step, {} of {} paired with "
        "their launch, launch delay median {:.3f} µs (max {:.3f}), {} shorter than their own "
        "launch call.\n\nWhole run (HTA's launch statistics): {} launches paired with device work, "
        "CPU {:.3f} ms, GPU {:.3f} ms, {} with device work shorter than the call; {} calls over "
        "{} µs, {} launch delays over {} µs.\n",
        l.launchesPerStep, l.pairedWithLaunch, l.kernels, l.medianLaunchDelayUs, l.maxLaunchDelayUs,
        l.shorterThanLaunch, p.paired, static_cast<double>(p.cpuDurationNs) / 1e6,
        static_cast<double>(p.gpuDurationNs) / 1e6, p.gpuShorterThanCpu, p.longCalls,
        kLaunchCallOutlierNs / 1000, p.longDelays, kLaunchDelayOutlierNs / 1000);
    if (p.paired == 0) return md;
    md += "\n| µs | p50 | p90 | p99 | max |\n|---|---:|---:|---:|---:|\n";
    for (const auto& [name, q] : p.distributions())
        md += fmt::format("| {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n", name, q->p50, q->p90,
                          q->p99, q->max);
    const auto outliers = [&](const char* title, const std::vector<LaunchPair>& pairs) {
        if (pairs.empty()) return;
        md += fmt::format(
            "\n{}\n\n| call | device work | step | call µs | work µs | delay µs |\n"
            "|---|---|---:|---:|---:|---:|\n",
            title);
        for (const LaunchPair& x : pairs) {
            md += fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} |\n", cellCode(x.call),
                              cellCode(shortName(x.work)), stepText(x.step),
                              static_cast<double>(x.cpuDurationNs) / 1e3,
                              static_cast<double>(x.gpuDurationNs) / 1e3,
                              static_cast<double>(x.launchDelayNs) / 1e3);
        }
    };
    outliers("Longest launch calls:", p.longestCalls);
    outliers("Longest launch delays:", p.longestDelays);
    return md;
}

// HTA's queue length per stream and the time at a full launch queue.
std::string queueLength(const QueueLengthResult& q) {
    if (q.streams.empty()) return "";
    std::string md = fmt::format(
        "\n### Launch queue by stream (HTA's queue length, whole run)\n\nOperations enqueued and "
        "not yet started; at {} the host blocks in the launch call.\n\n| stream | samples | mean "
        "| p50 | p75 | max | time-weighted mean | ms at a full queue | % of trace |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        q.capacity);
    for (const StreamQueueLength& s : q.streams) {
        md += fmt::format("| {} | {} | {:.2f} | {:g} | {:g} | {} | {:.2f} | {:.3f} | {:.1f} |\n",
                          cellCode(s.lane), s.samples, s.mean, s.p50, s.p75, s.max,
                          s.timeWeightedMean, static_cast<double>(s.atFullQueueNs) / 1e6,
                          100.0 * s.atFullQueueShare);
    }
    return md;
}

// HTA's user-annotation breakdown, GPU and CPU, the largest names and the rest as "others".
std::string annotationBreakdown(const AnnotationBreakdownResult& a) {
    constexpr std::size_t kShown = 15;
    std::string md;
    const auto table = [&](const char* title, const std::vector<NamedDurations>& names) {
        if (names.empty()) return;
        md += fmt::format(
            "\n### {} (HTA's user-annotation breakdown, whole run)\n\n| annotation | count | ms "
            "| mean µs | min µs | max µs | std µs |\n|---|---:|---:|---:|---:|---:|---:|\n",
            title);
        for (const NamedDurations& d : topWithOthers(names, kShown)) {
            md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n",
                              cellCode(shortName(d.name)), d.count, static_cast<double>(d.ns) / 1e6,
                              d.meanNs / 1e3, static_cast<double>(d.minNs) / 1e3,
                              static_cast<double>(d.maxNs) / 1e3, d.stddevNs / 1e3);
        }
    };
    table("GPU annotations", a.gpu);
    table("CPU annotations", a.cpu);
    return md;
}

// The ops every layer issues per step, glue first (math last), the 20 that take longest.
std::string perLayerWork(const PerLayerWorkResult& work) {
    if (work.ops.empty() || work.layerRanges.empty()) return "";
    std::string ranges;
    for (const std::string& r : work.layerRanges) ranges += (ranges.empty() ? "" : ", ") + code(r);
    std::string md = fmt::format(
        "\n### Per-layer work (measured steps)\n\n{:g} layers ({}) per step, {:.3f} ms of host "
        "time, {:.3f} ms of it in ops that are not math.\n\n| op | per layer | layers | per step | "
        "ms per step | kind |\n|---|---:|---:|---:|---:|---|\n",
        work.layersPerStep, ranges, work.layersMsPerStep, work.glueMsPerStep);
    constexpr std::size_t kShown = 20;
    for (const PerLayerOp* op : opsGlueFirst(work, kShown)) {
        md += fmt::format("| {} | {:g} | {:g} | {:g} | {:.3f} | {} |\n", cellCode(op->op),
                          op->perLayer, op->layers, op->perStep, op->msPerStep, op->kind);
    }
    if (work.ops.size() > kShown) md += fmt::format("\n({} more)\n", work.ops.size() - kShown);
    return md;
}

std::string runSection(const RunAnalysis& r) {
    const AnalysisResult& a = r.analysis;
    std::string md = fmt::format(
        "\n## Run {} {}\n\n### Where a step's time goes (median ms)\n\n{}.\n\n| part | ms "
        "|\n|---|---:|\n",
        r.run.id, code(r.run.label), partsMeaning(a.glue));
    for (std::size_t p = 0; p < kGluePartCount && p < a.glue.medianMsPerPart.size(); ++p) {
        md += fmt::format("| {} | {:.3f} |\n", toString(static_cast<GluePart>(p)),
                          a.glue.medianMsPerPart[p]);
    }
    if (!a.glue.gapWork.empty()) {
        md +=
            "\n### Host work while the device idled (per step)\n\n| host op | ms | count |\n"
            "|---|---:|---:|\n";
        for (const GapWork& w : a.glue.gapWork)
            md += fmt::format("| {} | {:.3f} | {} |\n", cellCode(w.name), w.msPerStep,
                              countText(w.countPerStep));
    }
    md += deviceTimeline(a.timeline);
    md += kernelBreakdown(a.kernels);
    md += idleBreakdown(a.idle);
    md += launchStats(a.launches);
    md += queueLength(a.queues);
    md += annotationBreakdown(a.annotations);
    md += perLayerWork(a.perLayer);
    if (a.syncPoints.byLayer.empty()) {
        md += "\n### Sync points by layer\n\nNo sync points in the measured steps.\n";
    } else {
        md += fmt::format(
            "\n### Sync points by layer (in all, over the {} measured steps)\n\n| layer | "
            "count |\n|---|---:|\n",
            a.steps.measured.size());
    }
    for (const SyncGroup& g : a.syncPoints.byLayer) {
        md += fmt::format("| {} | {} |\n", cellCode(g.key), g.count);
    }
    if (a.syncPoints.hostSyncsCaptured && a.syncPoints.hostSyncs.empty()) {
        md += "\n### Host syncs on the GPU\n\nNone in the measured steps.\n";
    } else if (a.syncPoints.hostSyncsCaptured) {
        md += fmt::format(
            "\n### Host syncs on the GPU (measured steps)\n\n{:g} per step, blocking {:.3f} ms "
            "per step.\n\n| sync | op | awaited device work | ms |\n|---|---|---|---:|\n",
            a.syncPoints.medianHostSyncsPerStep, a.syncPoints.medianSyncBlockedMs);
        constexpr std::size_t kShown = 20;
        for (std::size_t i = 0; i < a.syncPoints.hostSyncs.size() && i < kShown; ++i) {
            const SyncPoint& p = a.syncPoints.hostSyncs[i];
            const std::string awaited =
                p.awaited.size() > 100 ? p.awaited.substr(0, 100) + "..." : p.awaited;
            md += fmt::format("| step {} | {} | {} | {:.3f} |\n", p.step, cellCode(p.op),
                              awaited.empty() ? "(none launched)" : cellCode(awaited),
                              static_cast<double>(p.durationNs) / 1e6);
        }
        if (a.syncPoints.hostSyncs.size() > kShown)
            md += fmt::format("\n({} more)\n", a.syncPoints.hostSyncs.size() - kShown);
    }
    if (a.copyOverlap.total.copies > 0) {
        md += fmt::format(
            "\n### Copy/compute overlap\n\nOverlap ratio {:.3f}, exposed copy {:.3f} ms per step, "
            "{} copies.\n",
            a.copyOverlap.total.overlapRatio(), a.copyOverlap.exposedMsPerStep(),
            a.copyOverlap.total.copies);
        md += "\n| direction | copies | MB | copy ms | GB/s |\n|---|---:|---:|---:|---:|\n";
        for (const auto& [direction, t] : a.copyOverlap.byDirection)
            md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.2f} |\n", direction, t.copies,
                              static_cast<double>(t.bytes) / 1e6,
                              static_cast<double>(t.copyNs) / 1e6, t.bandwidthGBps());
    }
    if (a.bubbles.workers > 0) {
        md += fmt::format(
            "\n### Pipeline bubbles\n\n{} workers, makespan {:.3f} ms per step (median of {}), "
            "bubble ratio {:.2f}% ({}).\n",
            a.bubbles.workers, a.bubbles.medianStepMakespanMs(), a.bubbles.stepMakespansNs.size(),
            100 * a.bubbles.ratio, a.bubbles.breakdownText());
    }
    md += "\n### Advisor\n\n" + renderFindingsMarkdown(a.findings);
    if (!r.diagnostics.empty()) {
        md += "\n### Diagnostics\n\n";
        for (const Diagnostic& d : r.diagnostics) {
            md += fmt::format("- {} = {}: {}\n", code(d.name), d.value, code(d.detail));
        }
    }
    return md;
}

}  // namespace

std::string renderResultsMarkdown(const Results& results) {
    std::string md = header(results) + verdictTable(results);
    md += "\nRuns:\n\n";
    for (const RunAnalysis& r : results.runs) {
        md += fmt::format("- run {} {}: preset {}, {}, {}\n", r.run.id, code(r.run.label),
                          code(r.run.preset), code(r.run.device), r.run.displayStatus());
    }
    for (const Comparison& c : results.comparisons) md += comparisonSection(c, results);
    for (const RankSet* set : rankSetsShownAlone(results)) md += rankSetSection(*set, results);
    for (const RunAnalysis& r : results.runs) md += runSection(r);
    return md;
}

}  // namespace glueprof
