#include "app/report/ResultsText.h"

#include "app/report/VerdictText.h"
#include "profiler/core/MachineLoad.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/report/Findings.h"
#include "app/report/RankText.h"
#include "app/report/SyncComparison.h"
#include "profiler/core/CountText.h"

namespace glueprof {

namespace {

constexpr const char* kRow = "  {:<34} {:>12} {:>12}{}\n";

std::string number(double value) { return fmt::format("{:.3f}", value); }
std::string count(double value) { return countText(value); }

std::string row(const std::string& name, const std::string& before, const std::string& after,
                const std::string& note = "") {
    return fmt::format(kRow, name, before, after, note.empty() ? "" : "   " + note);
}

std::string verdictLine(const AbComparison& c) {
    const MetricComparison* m = c.metric(c.primaryMetric);
    if (m == nullptr) return toString(c.verdict());
    std::string line = toString(c.verdict());
    line += fmt::format(" ({} {})", toString(c.primaryMetric), speedupText(*m));
    line += detectableSuffix(c.verdict(), *m);
    return line;
}

// The figures beside the timings: copies, pipeline bubbles, the GPU's host syncs.
std::string sideFigureRows(const AnalysisResult& b, const AnalysisResult& o) {
    std::string out;
    if (b.copyOverlap.total.copies > 0 || o.copyOverlap.total.copies > 0) {
        out += row("copy_overlap_ratio", number(b.copyOverlap.total.overlapRatio()),
                   number(o.copyOverlap.total.overlapRatio()));
        out += row("exposed_copy_ms_per_step", number(b.copyOverlap.exposedMsPerStep()),
                   number(o.copyOverlap.exposedMsPerStep()));
    }
    if (b.bubbles.workers > 0 || o.bubbles.workers > 0) {
        out += row("pipeline_bubble_ratio", number(b.bubbles.ratio), number(o.bubbles.ratio));
        out += row("pipeline_makespan_ms", number(b.bubbles.medianStepMakespanMs()),
                   number(o.bubbles.medianStepMakespanMs()));
    }
    if (b.syncPoints.hostSyncsCaptured || o.syncPoints.hostSyncsCaptured) {
        out += row("host_syncs_per_step", count(b.syncPoints.medianHostSyncsPerStep),
                   count(o.syncPoints.medianHostSyncsPerStep));
        out += row("sync_blocked_ms", number(b.syncPoints.medianSyncBlockedMs),
                   number(o.syncPoints.medianSyncBlockedMs));
    }
    return out;
}

// A data-parallel A/B's ranks: each rank's arms compared, then the ranks side by side per arm.
std::string rankComparisonBlock(const Comparison& comparison, const Results& results) {
    const RankPairsView view = rankPairsOf(comparison, results);
    if (view.ranks.empty()) return "";
    std::string out =
        fmt::format("  ranks ({} processes, data parallel; the verdicts above are rank {}'s):\n",
                    view.baseline->worldSize, view.judgedRank);
    out += fmt::format("    {:<5} {:>20} {:>20} {:>22}  {}\n", "rank", "step ms b -> o",
                       "exposed comm ms", "comm/compute overlap", "step speedup [95% CI]");
    std::string clocks;
    for (const RankPairView& rank : view.ranks) {
        const MetricComparison* step = rank.ab->metric(TimingMetric::kStep);
        out += fmt::format(
            "    {:<5} {:>20} {:>20} {:>22}  {}\n", rank.rank,
            step != nullptr ? fmt::format("{:.3f} -> {:.3f}", step->baseline, step->optimized)
                            : std::string("-"),
            fmt::format("{:.3f} -> {:.3f}", rank.baseline->medianPartMs(GluePart::kComm),
                        rank.optimized->medianPartMs(GluePart::kComm)),
            overlapRatioText(rank.baselineOverlap) + " -> " +
                overlapRatioText(rank.optimizedOverlap),
            step != nullptr ? speedupText(*step) : std::string("-"));
        clocks += fmt::format("    clock of rank {}: {}\n", rank.rank,
                              clockAlignmentText(*rank.optimized));
    }
    const RankAnalysisResult& before = view.baseline->analysis;
    const RankAnalysisResult& after = view.optimized->analysis;
    out += row("spread per step (max - median ms)", number(before.medianSpreadMs),
               number(after.medianSpreadMs));
    out += row("straggler ms (worst collective/step)", number(before.medianStragglerMs),
               number(after.medianStragglerMs));
    return out + clocks;
}

std::string comparisonBlock(const Comparison& comparison, const Results& results) {
    const AbComparison& c = comparison.ab;
    const RunAnalysis& b = results.baselineOf(comparison);
    const RunAnalysis& o = results.optimizedOf(comparison);
    std::string out =
        fmt::format("\n{} (runs {} vs {})\n", c.toggle, c.baselineRun, c.optimizedRun);
    // What the header says is what the step row compared (device figures only where every
    // measured step of both runs has one); a row timed otherwise says so itself.
    const MetricComparison* step = c.metric(TimingMetric::kStep);
    const bool device = step != nullptr && step->deviceTimed;
    out += row(device ? "metric (median, device time)" : "metric (median)", "baseline", "optimized",
               "speedup [95% CI]");
    for (const MetricComparison& m : c.metrics) {
        const char* timedOtherwise =
            m.deviceTimed == device ? "" : (m.deviceTimed ? " (device)" : " (host)");
        out += row(std::string(m.name()) + timedOtherwise, number(m.baseline), number(m.optimized),
                   speedupText(m));
    }
    for (const CounterComparison& k : c.counters) {
        out += row(k.name, count(k.baseline), count(k.optimized),
                   k.baselineConstant && k.optimizedConstant ? "" : "(varies per step)");
    }
    out += sideFigureRows(b.analysis, o.analysis);
    out += fmt::format(
        "  {:<34} {}\n", "loss",
        !c.lossRecorded
            ? std::string("not recorded (imported traces; programs that do not report it)")
        : c.lossEqual ? (c.baselineSteps == c.optimizedSteps
                             ? std::string("equal, bit for bit, at every step")
                             : fmt::format("equal, bit for bit, at the {} steps both arms ran "
                                           "(baseline {} steps, optimized {})",
                                           c.lossStepsCompared, c.baselineSteps, c.optimizedSteps))
                      : fmt::format("DIFFERS (final {:.6f} vs {:.6f})", c.baselineFinalLoss,
                                    c.optimizedFinalLoss));
    // With a target, its verdict and the end-to-end one say it all (as in the other faces); the
    // primary metric's figures stay in the table above.
    if (!c.target) out += fmt::format("  {:<34} {}\n", "verdict", verdictLine(c));
    if (c.target) out += fmt::format("  {:<34} {}\n", "target", targetVerdictText(*c.target));
    out += fmt::format("  {:<34} {}\n", "end to end", endToEndVerdictText(c));
    if (const std::string load = loadDriftText(c); !load.empty())
        out += fmt::format("  {:<34} {}\n", "machine load", load);
    for (const RunAnalysis* r : {&b, &o}) {
        for (const Diagnostic& d : r->diagnostics) {
            if (d.name == kMachineLoadDiagnostic) continue;  // the machine load line says it
            out += fmt::format("  diagnostic (run {}): {} = {} ({})\n", r->run.id, d.name, d.value,
                               d.detail);
        }
    }
    return out + rankComparisonBlock(comparison, results);
}

// "tracing overhead ≈ X% of step time (...)" over RUNS (a range when they differ); "not measured"
// when their calibration could not tell; "" for runs that record none (imported, older).
std::string tracingOverheadLine(const std::vector<const RunAnalysis*>& runs) {
    bool recorded = false;
    for (const RunAnalysis* r : runs) recorded = recorded || r->tracing.recorded;
    double low = 0.0;
    double high = 0.0;
    double ns = 0.0;
    double events = 0.0;
    int known = 0;
    for (const RunAnalysis* r : runs) {
        const std::optional<double> f = r->tracing.fraction();
        if (!f) continue;
        low = known == 0 ? *f : std::min(low, *f);
        high = known == 0 ? *f : std::max(high, *f);
        ns += *r->tracing.nsPerEvent;
        events += r->tracing.eventsPerStep;
        ++known;
    }
    if (known == 0) {
        return recorded ? "tracing overhead: not measured (the calibration at the capture's start "
                          "could not tell: a machine too busy, or no scratch database)\n"
                        : "";
    }
    const std::string share = fmt::format("{:.1f}", 100 * low) == fmt::format("{:.1f}", 100 * high)
                                  ? fmt::format("{:.1f}%", 100 * low)
                                  : fmt::format("{:.1f}-{:.1f}%", 100 * low, 100 * high);
    return fmt::format(
        "tracing overhead ≈ {} of step time ({:.0f} aten ops per step on the busiest thread x "
        "{:.0f} ns each, calibrated when the capture started; the writer thread's SQLite time runs "
        "beside it at a lower priority)\n",
        share, events / known, ns / known);
}

// What changed by name (HTA's TraceDiff): per side and kind of change, the first `top` names.
std::string diffSection(const TraceDiffResult& diff, std::size_t top) {
    std::string out =
        diff.step ? fmt::format("\nwhat changed in step {} (per step: count, ms)\n", *diff.step)
                  : fmt::format(
                        "\nwhat changed, per step (mean over {} and {} measured steps: "
                        "count, ms)\n",
                        diff.referenceSteps, diff.comparedSteps);
    for (DiffSide side : {DiffSide::kHost, DiffSide::kDevice}) {
        for (NameChange change : {NameChange::kAdded, NameChange::kRemoved, NameChange::kMore,
                                  NameChange::kFewer, NameChange::kUnchanged}) {
            const std::vector<const NameDiff*> names = diff.of(change, side);
            if (names.empty()) continue;
            out += fmt::format("  {} {} ({}):\n", side == DiffSide::kHost ? "host" : "device",
                               toString(change), names.size());
            for (std::size_t i = 0; i < names.size() && i < top; ++i) {
                const NameDiff& d = *names[i];
                out += fmt::format("    {:<60.60} {:>8.2f} -> {:<8.2f} {:>10.3f} -> {:.3f} ms\n",
                                   d.name, d.referenceCount, d.comparedCount, d.referenceMs,
                                   d.comparedMs);
            }
            if (names.size() > top) out += fmt::format("    ... {} more\n", names.size() - top);
        }
    }
    return out;
}

// The sync points before and after: medians per step, then each run's syncs by op.
std::string syncSection(const SyncComparison& c, std::size_t top) {
    const SyncPointsResult& x = *c.baseline;
    const SyncPointsResult& y = *c.optimized;
    std::string out = "\nsync points (median per step)\n";
    if (c.hostSyncsCaptured) {
        out += fmt::format("  host-blocking syncs      {:>8.1f} -> {:.1f}\n",
                           x.medianHostSyncsPerStep, y.medianHostSyncsPerStep);
        out += fmt::format("  time blocked (ms)        {:>8.3f} -> {:.3f}\n", x.medianSyncBlockedMs,
                           y.medianSyncBlockedMs);
    }
    out += fmt::format("  ops that sync            {:>8.1f} -> {:.1f}\n", x.medianPerStep,
                       y.medianPerStep);
    for (const auto& [label, run] : {std::pair{"before", &x}, std::pair{"after", &y}}) {
        const std::vector<SyncGroup>& groups = SyncComparison::listedByOp(*run);
        if (groups.empty()) continue;
        out += fmt::format("  {} (by op, all measured steps):\n", label);
        for (std::size_t i = 0; i < groups.size() && i < top; ++i) {
            out += fmt::format("    {:<50.50} {:>6} x {:>10.3f} ms\n", groups[i].key,
                               groups[i].count, groups[i].totalMs);
        }
    }
    return out;
}

}  // namespace

std::string renderComparisonTable(const Results& results) {
    std::string out =
        fmt::format("glueprof A/B: preset {} on {}", results.preset(), results.device());
    if (results.setup) {
        out += fmt::format(", {} block(s) x {} step(s) per arm after {} warm-up step(s)",
                           results.setup->repeats, results.setup->steps, results.setup->warmup);
    }
    out += "\n";
    if (!results.gpuCapture().empty())
        out += fmt::format("GPU capture: {}\n", results.gpuCapture());
    for (const Comparison& c : results.comparisons) out += comparisonBlock(c, results);
    for (const SkippedComparison& skipped : results.skipped) {
        out += fmt::format("\n{}: skipped, {}\n", skipped.toggle, skipped.reason);
    }
    std::vector<const RunAnalysis*> compared;
    for (const Comparison& c : results.comparisons) {
        compared.push_back(&results.runs[c.baseline]);
        compared.push_back(&results.runs[c.optimized]);
    }
    const std::string overhead = tracingOverheadLine(compared);
    if (!overhead.empty()) out += "\n" + overhead;
    // Where the capture costs a step more than a toggle's target takes of it, both arms carry that
    // cost and the end-to-end ratio is diluted toward 1x: said once, naming those toggles, so a
    // "no significant change" is read as what it is.
    std::string smaller;
    double tracedShare = 0.0;
    for (const Comparison& c : results.comparisons) {
        const std::optional<double> traced = results.runs[c.baseline].tracing.fraction();
        if (!c.ab.target || !traced || *traced <= c.ab.target->baselineShare()) continue;
        tracedShare = std::max(tracedShare, *traced);
        smaller += fmt::format("{}{} ({:.1f}%)", smaller.empty() ? "" : ", ", c.ab.toggle,
                               100.0 * c.ab.target->baselineShare());
    }
    if (!smaller.empty()) {
        out += fmt::format(
            "note: tracing (up to {:.1f}% of a step) costs more than the target of {}: both arms "
            "carry it, so their end-to-end speedups read nearer 1x than they would untraced\n",
            100.0 * tracedShare, smaller);
    }
    out += fmt::format("\ndatabase: {}\n", results.db);
    if (!results.reportPath.empty()) out += fmt::format("report:   {}\n", results.reportPath);
    return out;
}

std::string renderCompareText(const CompareResults& compared, std::size_t top) {
    const Results& results = compared.results;
    const SyncComparison syncs =
        compareSyncPoints(results.runs[0].analysis.syncPoints, results.runs[1].analysis.syncPoints);
    return renderComparisonTable(results) + diffSection(compared.diff, top) +
           syncSection(syncs, top);
}

namespace {

// The ops every layer issues besides its math, the 10 that take longest (report --format md: all).
std::string perLayerWorkText(const PerLayerWorkResult& work) {
    if (work.ops.empty() || work.layerRanges.empty()) return "";
    std::string out = fmt::format(
        "  per-layer work: {:g} layers ({}), {:.3f} ms per step, {:.3f} ms of it not math:\n",
        work.layersPerStep, work.layerRanges.front(), work.layersMsPerStep, work.glueMsPerStep);
    out += fmt::format("    {:<32} {:>9} {:>9} {:>12}  {}\n", "op (not math)", "per layer",
                       "per step", "ms per step", "kind");
    constexpr int kShown = 10;
    int shown = 0;
    for (const PerLayerOp& op : work.ops) {
        if (op.math) continue;
        if (shown++ == kShown) break;
        out += fmt::format("    {:<32.32} {:>9g} {:>9g} {:>12.3f}  {}\n", op.op, op.perLayer,
                           op.perStep, op.msPerStep, op.kind);
    }
    return out;
}

}  // namespace

std::string renderRunSummary(const RunAnalysis& r, const std::string& db,
                             const ProcessStats& process) {
    const RunSummary& run = r.run;
    const AnalysisResult& a = r.analysis;
    std::string out = fmt::format(
        "run {} ({}): preset {} on {}, status {}, {} steps ({} measured)\n", run.id, run.label,
        run.preset, run.device, run.displayStatus(), run.stepCount, a.steps.measured.size());
    if (!r.gpuCapture.empty()) out += "GPU capture: " + r.gpuCapture + "\n";
    if (run.stepCount > 0 && a.steps.measured.empty()) {
        out += fmt::format(
            "  no measured step: all {} were warm-up, so the medians below are 0; lower --warmup "
            "or run more steps\n",
            run.stepCount);
    }
    for (TimingMetric m : kTimingMetrics) {
        out += fmt::format("  {:<24} {:>10.3f}", std::string(toString(m)) + " (median)",
                           a.steps.median(m));
        if (a.steps.deviceTimed(m)) {  // device time; the host's time of queuing beside it
            out += fmt::format("   on the device; host {:.3f}", a.steps.medianHost(m));
        }
        out += "\n";
    }
    const std::string overhead = tracingOverheadLine({&r});
    if (!overhead.empty()) out += "  " + overhead;
    if (process.peakRssBytes > 0) {
        out += fmt::format("  {:<24} {:>10.1f}\n", "peak host memory (MiB)",
                           static_cast<double>(process.peakRssBytes) / (1024.0 * 1024.0));
    }
    out += fmt::format(
        "  where a step's time goes (median ms; math > glue > copy > comm > sync wait > idle;\n"
        "  {}):\n",
        partsMeaning(a.glue));
    for (std::size_t p = 0; p < kGluePartCount && p < a.glue.medianMsPerPart.size(); ++p) {
        out += fmt::format("    {:<22} {:>10.3f}\n", toString(static_cast<GluePart>(p)),
                           a.glue.medianMsPerPart[p]);
    }
    if (!a.glue.gapWork.empty()) {
        out += "  host work while the device idled (ms per step):\n";
        for (const GapWork& w : a.glue.gapWork)
            out += fmt::format("    {:<50.50} {:>10.3f}  ({} per step)\n", w.name, w.msPerStep,
                               count(w.countPerStep));
    }
    out +=
        fmt::format("  {:<24} {:>10}\n", "sync points per step", count(a.syncPoints.medianPerStep));
    for (const SyncGroup& g : a.syncPoints.byOp) {
        out += fmt::format("    {:<40} {:>8} in all\n", g.key, g.count);
    }
    for (const SyncGroup& g : a.syncPoints.byRange) {
        out += fmt::format("    in range {:<31} {:>8} in all\n", g.key, g.count);
    }
    if (a.syncPoints.hostSyncsCaptured) {
        out += fmt::format("  {:<24} {:>10g}\n", "host syncs per step (GPU)",
                           a.syncPoints.medianHostSyncsPerStep);
        out += fmt::format("  {:<24} {:>10.3f}\n", "sync blocked ms per step",
                           a.syncPoints.medianSyncBlockedMs);
        for (const SyncGroup& g : a.syncPoints.hostSyncsByAwaited) {
            out += fmt::format("    waiting for {:<60.60} {:>6} in all, {:.3f} ms\n", g.key,
                               g.count, g.totalMs);
        }
    }
    if (a.timeline.hasDeviceWork) {
        const HtaTemporalBreakdown& t = a.timeline.temporal;
        const GpuTimeline& g = a.timeline.timeline;
        out += fmt::format(
            "  device timeline (whole run): HTA {}{}\n", t.sumText(),
            a.timeline.commComputeOverlapPct
                ? fmt::format(", comm/compute overlap {:.2f}%", *a.timeline.commComputeOverlapPct)
                : std::string());
        out += fmt::format("    TraceLens: {}\n", g.sumText());
        const KernelMix& mix = a.timeline.kernels;
        const std::string categories = mix.shareText();
        out += fmt::format("    kernel time by category: {}; {} of {} kernels under 10 us\n",
                           categories, mix.shortKernels, mix.kernels);
        const auto longest = std::max_element(a.kernels.kernels.begin(), a.kernels.kernels.end(),
                                              [](const KernelTime& x, const KernelTime& y) {
                                                  return (x.name == "others" ? 0 : x.ns) <
                                                         (y.name == "others" ? 0 : y.ns);
                                              });
        if (!a.kernels.byType.empty())
            out += fmt::format("    kernel time by HTA's type: {}\n", a.kernels.typeShareText());
        if (longest != a.kernels.kernels.end() && longest->name != "others") {
            const KernelTime& top = *longest;
            out +=
                fmt::format("    longest kernel (HTA's breakdown): {:.80} {:.3f} ms in {} runs\n",
                            top.name, static_cast<double>(top.ns) / 1e6, top.count);
        }
    }
    if (!a.idle.empty()) {
        out += "  device idle by stream (ms, whole run; HTA's host wait / kernel wait / other):\n";
        for (const StreamIdle& s : a.idle) {
            out += fmt::format(
                "    {:<28.28} busy {:>10.3f}  host wait {:>9.3f}  kernel wait {:>8.3f}"
                "  other {:>9.3f}\n",
                s.lane, static_cast<double>(s.busyNs) / 1e6,
                static_cast<double>(s.hostWaitNs) / 1e6, static_cast<double>(s.kernelWaitNs) / 1e6,
                static_cast<double>(s.otherNs) / 1e6);
        }
    }
    if (a.launches.perLaunch.paired > 0) {
        const PerLaunchStats& p = a.launches.perLaunch;
        out += fmt::format(
            "  kernel launches (whole run): {} paired, CPU {:.3f} ms, GPU {:.3f} ms, launch delay "
            "median {:.3f} us (max {:.3f}), {} shorter on the GPU than their call\n",
            p.paired, static_cast<double>(p.cpuDurationNs) / 1e6,
            static_cast<double>(p.gpuDurationNs) / 1e6, p.launchDelay.p50, p.launchDelay.max,
            p.gpuShorterThanCpu);
        out += fmt::format(
            "    launch delay p50/p90/p99 {:.1f}/{:.1f}/{:.1f} us; {} calls over {} us, {} delays "
            "over {} us\n",
            p.launchDelay.p50, p.launchDelay.p90, p.launchDelay.p99, p.longCalls,
            kLaunchCallOutlierNs / 1000, p.longDelays, kLaunchDelayOutlierNs / 1000);
        if (!p.longestDelays.empty()) {
            const LaunchPair& worst = p.longestDelays.front();
            out +=
                fmt::format("    longest launch delay: {:.3f} us, {} -> {:.60}\n",
                            static_cast<double>(worst.launchDelayNs) / 1e3, worst.call, worst.work);
        }
    }
    for (const StreamQueueLength& s : a.queues.streams) {
        out += fmt::format(
            "  launch queue {:<24.24} mean {:.1f} (time-weighted {:.1f}), max {}, {:.3f} ms at a "
            "full queue ({})\n",
            s.lane, s.mean, s.timeWeightedMean, s.max, static_cast<double>(s.atFullQueueNs) / 1e6,
            a.queues.capacity);
    }
    const auto topAnnotations = [&](const char* where, const std::vector<NamedDurations>& names) {
        if (names.empty()) return;
        out += fmt::format("  {} annotations (HTA's breakdown, ms):", where);
        for (const NamedDurations& d : topWithOthers(names, 3))
            out += fmt::format(" {:.40} {:.3f} in {};", d.name, static_cast<double>(d.ns) / 1e6,
                               d.count);
        out.back() = '\n';
    };
    topAnnotations("GPU", a.annotations.gpu);
    topAnnotations("CPU", a.annotations.cpu);
    out += perLayerWorkText(a.perLayer);
    out += "  advisor:\n" + renderFindingsText(a.findings);
    for (const Diagnostic& d : r.diagnostics)
        out += fmt::format("  diagnostic: {} = {} ({})\n", d.name, d.value, d.detail);
    out += fmt::format("database: {}\n", db);
    return out;
}

std::string renderRankLines(const Results& results, const RankSet& ranks) {
    std::string out = fmt::format("  ranks ({} processes, data parallel):\n", ranks.worldSize);
    out += fmt::format("    {:<6} {:>6} {:>14} {:>18} {:>12}  {}\n", "rank", "run",
                       "median step ms", "exposed comm ms", "last loss", "clock");
    std::string slowest, overlap;
    for (const RankRowView& row : rankRowsOf(ranks, results)) {
        const RunAnalysis& r = *row.run;
        const double lastLoss =
            r.analysis.steps.measured.empty() ? 0.0 : r.analysis.steps.measured.back().loss;
        out += fmt::format("    {:<6} {:>6} {:>14.3f} {:>18.3f} {:>12.5f}  {}\n", row.rank,
                           r.run.id, r.analysis.steps.medianWallMs, r.medianPartMs(GluePart::kComm),
                           lastLoss, clockAlignmentText(r));
        slowest +=
            fmt::format("{}rank {}: {}", slowest.empty() ? "" : ", ", row.rank, row.slowestCount);
        overlap += fmt::format("{}rank {}: {}", overlap.empty() ? "" : ", ", row.rank,
                               overlapRatioText(row.overlap));
    }
    const RankAnalysisResult& a = ranks.analysis;
    if (a.steps.empty()) return out;
    out +=
        fmt::format("  {:<34} {:>10.3f}\n", "spread per step (max - median ms)", a.medianSpreadMs);
    out += fmt::format("  {:<34} {:>10.3f}\n", "straggler ms (worst collective/step)",
                       a.medianStragglerMs);
    out += fmt::format("  slowest rank (measured steps): {}\n", slowest);
    out += fmt::format("  comm/compute overlap |comm ∩ compute| / |comm|: {}\n", overlap);
    return out;
}

}  // namespace glueprof
