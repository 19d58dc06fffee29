// One run's sections of the report's document (ReportBuilder.h): what a reader of one run looks
// at, from where its steps' time goes to what the advisor would change first.
#include <fmt/format.h>

#include <set>

#include "analyzers/Statistics.h"
#include "app/report/Findings.h"
#include "app/report/ReportBuilder.h"
#include "profiler/core/CountText.h"
#include "profiler/core/Diagnostics.h"
#include "profiler/core/TextEncoding.h"

namespace glueprof {

namespace {

// A trace-derived name short enough for a table cell.
Text shortCode(const std::string& name) { return code(shortenedText(name, 90)); }

std::string ms(TimestampNs ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }
std::string us(double ns) { return fmt::format("{:.3f}", ns / 1e3); }
std::string decimal(double value, const char* format = "{:.3f}") {
    return fmt::format(fmt::runtime(format), value);
}
double percent(TimestampNs part, TimestampNs whole) {
    return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Losses (the capture missed something) first, then what an import skipped or derived.
void addDiagnostics(ReportDocument& doc, const RunAnalysis& r) {
    for (const bool losses : {true, false}) {
        Notice notice{
            losses,
            plain(fmt::format("Run {} {}:", r.run.id, losses ? "lost something" : "notes")),
            {}};
        for (const Diagnostic& d : r.diagnostics) {
            if (isLoss(d.name) != losses) continue;
            notice.items.push_back(code(d.name) + plain(fmt::format(" = {}: ", d.value)) +
                                   foreign(d.detail));
        }
        if (!notice.items.empty()) doc.notice(std::move(notice));
    }
}

void addStepParts(ReportDocument& doc, const RunAnalysis& r, TimestampNs widestNs,
                  TimestampNs widestNonMathNs) {
    const GlueOverheadResult& glue = r.analysis.glue;
    doc.heading(3, plain("Where a step's time goes (median ms)"));
    doc.paragraph(plain(std::string(partsMeaning(glue)) + "."));
    doc.figure(
        Figure{FigureKind::kGlueBars, "Each measured step, to one scale:", &r, nullptr, widestNs});
    doc.figure(Figure{FigureKind::kNonMathBars, "Outside the math (to its own scale):", &r, nullptr,
                      widestNonMathNs});
    Table parts{{{"part", Align::kLeft}, {"ms"}}};
    for (std::size_t p = 0; p < kGluePartCount && p < glue.medianMsPerPart.size(); ++p) {
        parts.rows.push_back(
            {plain(toString(static_cast<GluePart>(p))), plain(decimal(glue.medianMsPerPart[p]))});
    }
    doc.table(std::move(parts));
    if (glue.gapWork.empty()) return;
    doc.heading(3, plain("Host work while the device idled (per step)"));
    Table gaps{{{"host op", Align::kLeft}, {"ms"}, {"count"}}};
    for (const GapWork& w : glue.gapWork)
        gaps.rows.push_back(
            {shortCode(w.name), plain(decimal(w.msPerStep)), plain(countText(w.countPerStep))});
    doc.table(std::move(gaps));
}

// Each step's time on the GPU by cause (analyzers/StepAttribution.h): the device busy by kind and
// its idle by what the host did; the median of each over the measured steps.
void addStepAttribution(ReportDocument& doc, const StepAttributionResult& r) {
    if (r.steps.empty()) return;
    std::vector<double> walls;
    std::set<std::int64_t> devices;
    for (const StepAttribution& a : r.steps) {
        devices.insert(a.device);
        if (a.device == r.steps.front().device)
            walls.push_back(static_cast<double>(a.wallNs) / 1e6);
    }
    const double wallMs = median(walls);
    doc.heading(3, plain("Each step's time by cause (median of the measured steps)"));
    doc.paragraph(plain(fmt::format(
        "GPU {}{}: the device busy by kind, then its idle by what the host did meanwhile; in each "
        "step the parts add up to its wall time (median step {:.3f} ms).",
        r.steps.front().device,
        devices.size() > 1 ? fmt::format(" of {} (the JSON has every GPU)", devices.size()) : "",
        wallMs)));
    Table t{{{"cause", Align::kLeft},
             {"ms"},
             {"% of the median step"},
             {"where the launching host threads were (ms per step)", Align::kLeft}}};
    for (std::size_t c = 0; c < kStepCauseCount; ++c) {
        if (r.medianMs[c] <= 0.0) continue;
        Text where;
        for (const CauseSite& site : r.sites[c]) {
            if (!where.empty()) where += plain("; ");
            where += foreign(site.name) + plain(fmt::format(" {:.3f}", site.msPerStep));
        }
        t.rows.push_back(
            {plain(toString(static_cast<StepCause>(c))), plain(decimal(r.medianMs[c])),
             plain(decimal(wallMs > 0 ? 100.0 * r.medianMs[c] / wallMs : 0.0, "{:.1f}")), where});
    }
    doc.table(std::move(t));
    const std::string coverage = r.coverage.describe();
    if (!coverage.empty()) doc.paragraph(plain("Host coverage: " + coverage + "."));
}

// A CPU run: each measured step's time on its thread by cause (HostStepAttribution.h).
void addHostStepAttribution(ReportDocument& doc, const HostStepAttributionResult& r) {
    if (r.steps.empty()) return;
    std::vector<double> walls;
    for (const HostStepAttribution& a : r.steps)
        walls.push_back(static_cast<double>(a.wallNs) / 1e6);
    const double wallMs = median(walls);
    doc.heading(3, plain("Each step's host time by cause (median of the measured steps)"));
    doc.paragraph(
        plain("The step's thread, ") + foreign(r.thread) +
        plain(fmt::format(": in each step the parts add up to its wall time (median "
                          "step {:.3f} ms){}.",
                          wallMs,
                          r.captureEstimated ? ""
                                             : "; the run stored no calibrated cost per op, so the "
                                               "capture's own cost is in the time between ops")));
    Table t{{{"cause", Align::kLeft}, {"ms"}, {"% of the median step"}}};
    for (std::size_t c = 0; c < kHostCauseCount; ++c) {
        if (r.medianMs[c] <= 0.0) continue;
        t.rows.push_back(
            {plain(toString(static_cast<HostCause>(c))), plain(decimal(r.medianMs[c])),
             plain(decimal(wallMs > 0 ? 100.0 * r.medianMs[c] / wallMs : 0.0, "{:.1f}"))});
    }
    doc.table(std::move(t));
}

// The device timeline as HTA and TraceLens define it, whole run (docs/metrics.md).
void addDeviceTimeline(ReportDocument& doc, const DeviceTimelineResult& d) {
    if (!d.hasDeviceWork) return;
    const HtaTemporalBreakdown& t = d.temporal;
    doc.heading(3, plain("Device timeline (whole run)"));
    doc.paragraph(plain(fmt::format(
        "HTA's temporal breakdown: kernel time {} ms, idle {} ms ({:.1f}%), compute {} ms "
        "({:.1f}%), non-compute {} ms ({:.1f}%){}.",
        ms(t.kernelNs), ms(t.idleNs), percent(t.idleNs, t.kernelNs), ms(t.computeNs),
        percent(t.computeNs, t.kernelNs), ms(t.nonComputeNs), percent(t.nonComputeNs, t.kernelNs),
        d.commComputeOverlapPct
            ? fmt::format("; comm/compute overlap {:.2f}%", *d.commComputeOverlapPct)
            : std::string())));
    Table timeline{{{"TraceLens GPU timeline", Align::kLeft}, {"ms"}, {"% of total"}}};
    for (const auto& [name, ns] : d.timeline.rows()) {
        timeline.rows.push_back({plain(name), plain(ms(ns)),
                                 plain(decimal(percent(ns, d.timeline.totalNs), "{:.1f}"))});
    }
    doc.table(std::move(timeline));
    const KernelMix& mix = d.kernels;
    doc.paragraph(plain(fmt::format(
        "Kernels by category (TraceLens's, whole run): {} kernels, copies and memsets, {} ms; {} "
        "of {} kernels run under 10 µs ({} ms).",
        mix.items, ms(mix.ns), mix.shortKernels, mix.kernels, ms(mix.shortKernelNs))));
    Table categories{{{"category", Align::kLeft}, {"count"}, {"ms"}, {"% of time"}}};
    for (std::size_t c = 0; c < mix.byCategory.size(); ++c) {
        const KernelCategoryTime& k = mix.byCategory[c];
        if (k.count == 0) continue;
        categories.rows.push_back({plain(toString(static_cast<KernelCategory>(c))),
                                   plain(std::to_string(k.count)), plain(ms(k.ns)),
                                   plain(decimal(percent(k.ns, mix.ns), "{:.1f}"))});
    }
    doc.table(std::move(categories));
}

// HTA's kernel breakdown: time by kernel type, and the kernels that take it.
void addKernelBreakdown(ReportDocument& doc, const KernelBreakdownResult& k) {
    if (k.byType.empty()) return;
    doc.heading(3, plain("Kernels (HTA's breakdown, whole run)"));
    std::string types;
    for (const KernelTypeTime& t : k.byType) {
        types += fmt::format("{}{} {} ms ({:.1f}%)", types.empty() ? "" : ", ", t.type, ms(t.ns),
                             t.percent);
    }
    doc.paragraph(plain(types + "."));
    Table kernels{{{"type", Align::kLeft},
                   {"kernel", Align::kLeft},
                   {"count"},
                   {"ms"},
                   {"mean µs"},
                   {"min µs"},
                   {"max µs"}}};
    for (const KernelTime& t : k.kernels) {
        kernels.rows.push_back({plain(t.type), shortCode(t.name), plain(std::to_string(t.count)),
                                plain(ms(t.ns)), plain(us(t.meanNs)),
                                plain(us(static_cast<double>(t.minNs))),
                                plain(us(static_cast<double>(t.maxNs)))});
    }
    doc.table(std::move(kernels));
}

// HTA's idle-time breakdown of each device stream over the whole run (docs/metrics.md).
void addIdleBreakdown(ReportDocument& doc, const std::vector<StreamIdle>& streams) {
    if (streams.empty()) return;
    doc.heading(3, plain("Device idle time by stream (HTA's breakdown, whole run)"));
    Table t{{{"stream", Align::kLeft},
             {"busy ms"},
             {"host wait ms"},
             {"kernel wait ms"},
             {"other ms"},
             {"gaps"}}};
    for (const StreamIdle& s : streams) {
        t.rows.push_back({code(s.lane), plain(ms(s.busyNs)), plain(ms(s.hostWaitNs)),
                          plain(ms(s.kernelWaitNs)), plain(ms(s.otherNs)),
                          plain(std::to_string(s.gaps))});
    }
    doc.table(std::move(t));
}

std::string stepText(std::int32_t step) { return step == kNoTag ? "-" : std::to_string(step); }

// Kernel launch statistics: the measured steps' kernels, and HTA's per-launch summary with the
// distributions and the outliers.
void addLaunchStats(ReportDocument& doc, const LaunchStatsResult& l) {
    if (l.kernels == 0 && l.perLaunch.paired == 0) return;
    const PerLaunchStats& p = l.perLaunch;
    doc.heading(3, plain("Kernel launches"));
    doc.paragraph(plain(fmt::format(
        "Measured steps: {:g} kernels per step, {} of {} paired with their launch, launch delay "
        "median {:.3f} µs (max {:.3f}), {} shorter than their own launch call.",
        l.launchesPerStep, l.pairedWithLaunch, l.kernels, l.medianLaunchDelayUs, l.maxLaunchDelayUs,
        l.shorterThanLaunch)));
    doc.paragraph(plain(fmt::format(
        "Whole run (HTA's launch statistics): {} launches paired with device work, CPU {} ms, GPU "
        "{} ms, {} with device work shorter than the call; {} calls over {} µs, {} launch delays "
        "over {} µs.",
        p.paired, ms(p.cpuDurationNs), ms(p.gpuDurationNs), p.gpuShorterThanCpu, p.longCalls,
        kLaunchCallOutlierNs / 1000, p.longDelays, kLaunchDelayOutlierNs / 1000)));
    if (p.paired == 0) return;
    Table distributions{{{"µs", Align::kLeft}, {"p50"}, {"p90"}, {"p99"}, {"max"}}};
    for (const auto& [name, q] : p.distributions()) {
        distributions.rows.push_back({plain(name), plain(decimal(q->p50)), plain(decimal(q->p90)),
                                      plain(decimal(q->p99)), plain(decimal(q->max))});
    }
    doc.table(std::move(distributions));
    const auto outliers = [&](const char* title, const std::vector<LaunchPair>& pairs) {
        if (pairs.empty()) return;
        doc.paragraph(plain(title));
        Table t{{{"call", Align::kLeft},
                 {"device work", Align::kLeft},
                 {"step"},
                 {"call µs"},
                 {"work µs"},
                 {"delay µs"}}};
        for (const LaunchPair& x : pairs) {
            t.rows.push_back({code(x.call), shortCode(x.work), plain(stepText(x.step)),
                              plain(us(static_cast<double>(x.cpuDurationNs))),
                              plain(us(static_cast<double>(x.gpuDurationNs))),
                              plain(us(static_cast<double>(x.launchDelayNs)))});
        }
        doc.table(std::move(t));
    };
    outliers("Longest launch calls:", p.longestCalls);
    outliers("Longest launch delays:", p.longestDelays);
}

// HTA's queue length per stream and the time at a full launch queue.
void addQueueLength(ReportDocument& doc, const QueueLengthResult& q) {
    if (q.streams.empty()) return;
    doc.heading(3, plain("Launch queue by stream (HTA's queue length, whole run)"));
    doc.paragraph(plain(fmt::format(
        "Operations enqueued and not yet started; at {} the host blocks in the launch call.",
        q.capacity)));
    Table t{{{"stream", Align::kLeft},
             {"samples"},
             {"mean"},
             {"p50"},
             {"p75"},
             {"max"},
             {"time-weighted mean"},
             {"ms at a full queue"},
             {"% of trace"}}};
    for (const StreamQueueLength& s : q.streams) {
        t.rows.push_back({code(s.lane), plain(std::to_string(s.samples)),
                          plain(decimal(s.mean, "{:.2f}")), plain(decimal(s.p50, "{:g}")),
                          plain(decimal(s.p75, "{:g}")), plain(std::to_string(s.max)),
                          plain(decimal(s.timeWeightedMean, "{:.2f}")), plain(ms(s.atFullQueueNs)),
                          plain(decimal(100.0 * s.atFullQueueShare, "{:.1f}"))});
    }
    doc.table(std::move(t));
}

// HTA's user-annotation breakdown, GPU and CPU, the largest names and the rest as "others".
void addAnnotations(ReportDocument& doc, const AnnotationBreakdownResult& a) {
    constexpr std::size_t kShown = 15;
    const auto table = [&](const char* title, const std::vector<NamedDurations>& names) {
        if (names.empty()) return;
        doc.heading(3,
                    plain(fmt::format("{} (HTA's user-annotation breakdown, whole run)", title)));
        Table t{{{"annotation", Align::kLeft},
                 {"count"},
                 {"ms"},
                 {"mean µs"},
                 {"min µs"},
                 {"max µs"},
                 {"std µs"}}};
        for (const NamedDurations& d : topWithOthers(names, kShown)) {
            t.rows.push_back({shortCode(d.name), plain(std::to_string(d.count)), plain(ms(d.ns)),
                              plain(us(d.meanNs)), plain(us(static_cast<double>(d.minNs))),
                              plain(us(static_cast<double>(d.maxNs))), plain(us(d.stddevNs))});
        }
        doc.table(std::move(t));
    };
    table("GPU annotations", a.gpu);
    table("CPU annotations", a.cpu);
}

// The ops every layer issues per step, glue first (math last), the 20 that take longest.
void addPerLayerWork(ReportDocument& doc, const PerLayerWorkResult& work) {
    if (work.ops.empty() || work.layerRanges.empty()) return;
    doc.heading(3, plain("Per-layer work (measured steps)"));
    Text ranges;
    for (const std::string& r : work.layerRanges)
        ranges += (ranges.empty() ? Text{} : plain(", ")) + code(r);
    doc.paragraph(plain(fmt::format("{:g} layers (", work.layersPerStep)) + ranges +
                  plain(fmt::format(") per step, {:.3f} ms of host time, {:.3f} ms of it in ops "
                                    "that are not math.",
                                    work.layersMsPerStep, work.glueMsPerStep)));
    Table t{{{"op", Align::kLeft},
             {"per layer"},
             {"layers"},
             {"per step"},
             {"ms per step"},
             {"kind", Align::kLeft}}};
    constexpr std::size_t kShown = 20;
    for (const PerLayerOp* op : opsGlueFirst(work, kShown)) {
        t.rows.push_back({code(op->op), plain(decimal(op->perLayer, "{:g}")),
                          plain(decimal(op->layers, "{:g}")), plain(decimal(op->perStep, "{:g}")),
                          plain(decimal(op->msPerStep)), plain(op->kind)});
    }
    doc.table(std::move(t));
    if (work.ops.size() > kShown)
        doc.paragraph(plain(fmt::format("({} more)", work.ops.size() - kShown)));
}

void addSyncPoints(ReportDocument& doc, const RunAnalysis& r) {
    const SyncPointsResult& s = r.analysis.syncPoints;
    if (s.byLayer.empty()) {
        doc.heading(3, plain("Sync points by layer"));
        doc.paragraph(plain("No sync points in the measured steps."));
    } else {
        doc.heading(3,
                    plain(fmt::format("Sync points by layer (in all, over the {} measured steps)",
                                      r.analysis.steps.measured.size())));
        doc.figure(Figure{FigureKind::kSyncByLayer, "", &r});
        Table t{{{"layer", Align::kLeft}, {"count"}}};
        for (const SyncGroup& g : s.byLayer)
            t.rows.push_back({code(g.key), plain(std::to_string(g.count))});
        doc.table(std::move(t));
    }
    if (!s.hostSyncsCaptured) return;
    if (s.hostSyncs.empty()) {
        doc.heading(3, plain("Host syncs on the GPU"));
        doc.paragraph(plain("None in the measured steps."));
        return;
    }
    doc.heading(3, plain("Host syncs on the GPU (measured steps)"));
    doc.paragraph(plain(fmt::format("{:g} per step, blocking {:.3f} ms per step.",
                                    s.medianHostSyncsPerStep, s.medianSyncBlockedMs)));
    Table t{{{"sync", Align::kLeft},
             {"op", Align::kLeft},
             {"awaited device work", Align::kLeft},
             {"ms"}}};
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < s.hostSyncs.size() && i < kShown; ++i) {
        const SyncPoint& p = s.hostSyncs[i];
        t.rows.push_back(
            {plain(fmt::format("step {}", p.step)), code(p.op),
             p.awaited.empty() ? plain("(none launched)") : code(shortenedText(p.awaited, 100)),
             plain(ms(p.durationNs))});
    }
    doc.table(std::move(t));
    if (s.hostSyncs.size() > kShown)
        doc.paragraph(plain(fmt::format("({} more)", s.hostSyncs.size() - kShown)));
}

void addCopies(ReportDocument& doc, const RunAnalysis& r) {
    const CopyOverlapResult& c = r.analysis.copyOverlap;
    if (c.total.copies == 0) return;
    doc.heading(3, plain("Copy/compute overlap"));
    doc.paragraph(
        plain(fmt::format("Overlap ratio {:.3f}, exposed copy {:.3f} ms per step, {} "
                          "copies.",
                          c.total.overlapRatio(), c.exposedMsPerStep(), c.total.copies)));
    doc.figure(Figure{FigureKind::kOverlapStrip, "", &r});
    Table t{{{"direction", Align::kLeft}, {"copies"}, {"MB"}, {"copy ms"}, {"GB/s"}}};
    for (const auto& [direction, d] : c.byDirection) {
        t.rows.push_back({plain(direction), plain(std::to_string(d.copies)),
                          plain(decimal(static_cast<double>(d.bytes) / 1e6)), plain(ms(d.copyNs)),
                          plain(decimal(d.bandwidthGBps(), "{:.2f}"))});
    }
    doc.table(std::move(t));
}

void addPipeline(ReportDocument& doc, const RunAnalysis& r) {
    const BubbleResult& b = r.analysis.bubbles;
    if (b.workers == 0) return;
    doc.heading(3, plain("Pipeline bubbles"));
    doc.paragraph(plain(fmt::format(
        "{} workers, makespan {:.3f} ms per step (median of {}), bubble ratio {:.2f}% ({}).",
        b.workers, b.medianStepMakespanMs(), b.stepMakespansNs.size(), 100 * b.ratio,
        b.breakdownText())));
    doc.figure(Figure{FigureKind::kGantt, "", &r});
}

// Who makes the change, as toggleText (Findings.h) says it, with the toggle as code: a toggle of
// the reference trainer, a change to the user's program, or no toggle yet.
Text toggleCell(const Finding& f) {
    if (f.inUserProgram || f.toggle.empty()) return plain(toggleText(f));
    return plain("try ") + code(f.toggle);
}

void addAdvisor(ReportDocument& doc, const std::vector<Finding>& findings) {
    doc.heading(3, plain("Advisor"));
    if (findings.empty()) {
        doc.paragraph(plain(std::string(kNoFindingsText) + "."));
        return;
    }
    std::vector<Text> items;
    for (const Finding& f : findings) {
        items.push_back(bold(f.rule) + plain(" (") + toggleCell(f) +
                        plain(fmt::format(", up to {:.3f} ms per step): ", f.savingMsPerStep)) +
                        foreign(f.evidence) + plain(". ") + bold("Fix:") + plain(" ") +
                        foreign(f.fix) + plain("."));
    }
    doc.list(std::move(items));
}

}  // namespace

void addRunSections(ReportDocument& doc, const RunAnalysis& r, TimestampNs widestNs,
                    TimestampNs widestNonMathNs) {
    const AnalysisResult& a = r.analysis;
    doc.heading(2, plain(fmt::format("Run {} ", r.run.id)) + code(r.run.label),
                fmt::format("run-{}", r.run.id));
    addDiagnostics(doc, r);
    addStepParts(doc, r, widestNs, widestNonMathNs);
    addStepAttribution(doc, a.attribution);
    addHostStepAttribution(doc, a.hostAttribution);
    addDeviceTimeline(doc, a.timeline);
    addKernelBreakdown(doc, a.kernels);
    addIdleBreakdown(doc, a.idle);
    addLaunchStats(doc, a.launches);
    addQueueLength(doc, a.queues);
    addAnnotations(doc, a.annotations);
    addPerLayerWork(doc, a.perLayer);
    addSyncPoints(doc, r);
    addCopies(doc, r);
    addPipeline(doc, r);
    addAdvisor(doc, a.findings);
}

}  // namespace glueprof
