// The A/B dashboard, the first thing shown: per phase before/after bars with speedup and interval,
// where each step's time goes, sync points, copy overlap, bubbles, the advisor and a verdict line.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>

#include "app/gui/Panel.h"
#include "app/gui/widgets/Charts.h"
#include "app/report/Findings.h"
#include "app/report/Palette.h"
#include "app/report/VerdictText.h"
#include "profiler/core/CountText.h"
#include "profiler/core/Diagnostics.h"

namespace glueprof::gui {

namespace {

void glueLegend() {
    for (std::size_t p = 0; p < kGluePartCount; ++p) {
        const auto part = static_cast<GluePart>(p);
        ImGui::ColorButton(toString(part),
                           ImGui::ColorConvertU32ToFloat4(imColour(partColour(part))),
                           ImGuiColorEditFlags_NoTooltip, ImVec2(10, 10));
        ImGui::SameLine();
        ImGui::TextUnformatted(toString(part));
        if (p + 1 < kGluePartCount) ImGui::SameLine();
    }
}

// `nonMathOnly`: the math folded into the label, the other parts to the scale of the widest
// non-math step, so a 1% share of glue, copy, sync wait or idle is readable.

// What every layer of a profiled model issues per step (analyzers/PerLayerWork), the ops that are
// not math first: the work the per_layer_glue advice is about, by name and count.
void perLayerTable(const PerLayerWorkResult& work, RunId run) {
    if (work.ops.empty() || work.layerRanges.empty()) return;
    const std::string title = fmt::format(
        "Per-layer work: {:g} layers ({}), {:.3f} ms per step, {:.3f} ms not math",
        work.layersPerStep, work.layerRanges.front(), work.layersMsPerStep, work.glueMsPerStep);
    if (!ImGui::CollapsingHeader(fmt::format("{}###perlayer{}", title, run).c_str(),
                                 ImGuiTreeNodeFlags_DefaultOpen))
        return;
    if (!ImGui::BeginTable(fmt::format("perlayer{}", run).c_str(), 5,
                           ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders))
        return;
    for (const char* column : {"op", "per layer", "per step", "ms per step", "kind"})
        ImGui::TableSetupColumn(column);
    ImGui::TableHeadersRow();
    constexpr std::size_t kShown = 15;
    for (const PerLayerOp* op : opsGlueFirst(work, kShown)) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(op->op.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%g", op->perLayer);
        ImGui::TableNextColumn();
        ImGui::Text("%g", op->perStep);
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", op->msPerStep);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(op->kind.c_str());
    }
    ImGui::EndTable();
}

// HTA's user-annotation breakdown of one run, the largest names and the rest as "others",
// folded under a header.
void annotationTable(const char* title, const std::vector<NamedDurations>& names, RunId run) {
    if (names.empty()) return;
    const std::string header = fmt::format("{} (HTA's user-annotation breakdown): {} names##{}{}",
                                           title, names.size(), title, run);
    if (!ImGui::TreeNode(header.c_str())) return;
    constexpr std::size_t kShown = 12;
    if (ImGui::BeginTable(
            fmt::format("annotations{}{}", title, run).c_str(), 4,
            ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("annotation", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("count");
        ImGui::TableSetupColumn("ms");
        ImGui::TableSetupColumn("mean us");
        ImGui::TableHeadersRow();
        for (const NamedDurations& d : topWithOthers(names, kShown)) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(d.name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(d.count));
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", static_cast<double>(d.ns) / 1e6);
            ImGui::TableNextColumn();
            ImGui::Text("%.1f", d.meanNs / 1e3);
        }
        ImGui::EndTable();
    }
    ImGui::TreePop();
}

void runSection(const RunAnalysis& r, TimestampNs widest, bool nonMathOnly) {
    const AnalysisResult& a = r.analysis;
    ImGui::Text("Run %lld  %s  (%s on %s)", static_cast<long long>(r.run.id), r.run.label.c_str(),
                r.run.preset.c_str(), r.run.device.c_str());
    // Losses in red; what an import skipped or derived is a note (see Diagnostics).
    std::size_t losses = 0;
    for (const Diagnostic& d : r.diagnostics) losses += isLoss(d.name) ? 1 : 0;
    if (losses > 0) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0F, 0.4F, 0.35F, 1.0F));
        ImGui::Text("%zu diagnostic(s): the capture lost something (see Diagnostics)", losses);
        ImGui::PopStyleColor();
    }
    if (r.diagnostics.size() > losses) {
        ImGui::TextDisabled("%zu note(s) on how this run was recorded (see Diagnostics)",
                            r.diagnostics.size() - losses);
    }
    ImGui::TextUnformatted("Where each measured step's time goes:");
    ImGui::PushTextWrapPos(0.0F);
    ImGui::TextDisabled("%s", partsMeaning(a.glue));
    ImGui::PopTextWrapPos();
    for (const GlueStep& s : a.glue.steps) {
        std::vector<Segment> segments;
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            const auto part = static_cast<GluePart>(p);
            if (nonMathOnly && part == GluePart::kMath) continue;
            segments.push_back(Segment{static_cast<double>(s.partNs[p]), partColour(part),
                                       fmt::format("step {}: {} {:.3f} ms", s.step, toString(part),
                                                   static_cast<double>(s.partNs[p]) / 1e6)});
        }
        const double math = static_cast<double>(s.part(GluePart::kMath)) / 1e6;
        stackedBar(
            segments, static_cast<double>(widest),
            nonMathOnly
                ? fmt::format("step {}: {:.3f} ms outside math (math {:.1f} ms)", s.step,
                              static_cast<double>(s.wallNs) / 1e6 - math, math)
                : fmt::format("step {}: {:.2f} ms", s.step, static_cast<double>(s.wallNs) / 1e6));
    }
    ImGui::Text("Sync points per step: %g", a.syncPoints.medianPerStep);
    if (a.launches.perLaunch.paired > 0) {  // HTA's launch statistics, whole run
        const PerLaunchStats& p = a.launches.perLaunch;
        ImGui::Text(
            "Kernel launches: %lld paired, launch delay median %.3f us (max %.3f), %lld "
            "shorter on the GPU than their call",
            static_cast<long long>(p.paired), p.launchDelay.p50, p.launchDelay.max,
            static_cast<long long>(p.gpuShorterThanCpu));
        ImGui::Text(
            "Launch delay p50/p90/p99 %.1f/%.1f/%.1f us; %lld calls over %lld us, %lld delays "
            "over %lld us",
            p.launchDelay.p50, p.launchDelay.p90, p.launchDelay.p99,
            static_cast<long long>(p.longCalls),
            static_cast<long long>(kLaunchCallOutlierNs / 1000),
            static_cast<long long>(p.longDelays),
            static_cast<long long>(kLaunchDelayOutlierNs / 1000));
    }
    for (const StreamQueueLength& q : a.queues.streams) {  // HTA's queue length, whole run
        ImGui::Text("Launch queue on %s: mean %.1f (time-weighted %.1f), max %lld, %.3f ms full",
                    q.lane.c_str(), q.mean, q.timeWeightedMean, static_cast<long long>(q.max),
                    static_cast<double>(q.atFullQueueNs) / 1e6);
    }
    annotationTable("GPU annotations", a.annotations.gpu, r.run.id);
    annotationTable("CPU annotations", a.annotations.cpu, r.run.id);
    if (a.timeline.hasDeviceWork) {  // TraceLens's GPU timeline and HTA's temporal breakdown
        const GpuTimeline& g = a.timeline.timeline;
        const HtaTemporalBreakdown& t = a.timeline.temporal;
        const auto ms = [](TimestampNs ns) { return static_cast<double>(ns) / 1e6; };
        const auto segment = [&](TimestampNs ns, GluePart colour, const char* name) {
            return Segment{static_cast<double>(ns), partColour(colour),
                           fmt::format("{} {:.3f} ms", name, ms(ns))};
        };
        stackedBar({segment(g.computationNs, GluePart::kMath, "computation"),
                    segment(g.exposedCommNs, GluePart::kComm, "exposed communication"),
                    segment(g.exposedMemcpyNs, GluePart::kCopy, "exposed memcpy"),
                    segment(g.idleNs, GluePart::kIdle, "idle")},
                   static_cast<double>(g.totalNs),
                   fmt::format("GPU idle {:.1f}% (TraceLens)",
                               g.totalNs > 0 ? 100.0 * ms(g.idleNs) / ms(g.totalNs) : 0.0));
        ImGui::Text("GPU timeline (TraceLens): %s", g.sumText().c_str());
        const KernelMix& mix = a.timeline.kernels;
        const std::string categories = mix.shareText();
        if (!a.kernels.byType.empty())
            ImGui::Text("Kernel time by HTA's kernel type: %s", a.kernels.typeShareText().c_str());
        ImGui::Text("Kernel time by category: %s; %lld of %lld kernels under 10 us",
                    categories.c_str(), static_cast<long long>(mix.shortKernels),
                    static_cast<long long>(mix.kernels));
        ImGui::Text(
            "HTA temporal breakdown: %s%s", t.sumText().c_str(),
            a.timeline.commComputeOverlapPct
                ? fmt::format(", comm/compute overlap {:.2f}%", *a.timeline.commComputeOverlapPct)
                      .c_str()
                : "");
    }
    for (const StreamIdle& idle : a.idle) {  // HTA's idle breakdown, whole run
        ImGui::Text(
            "Device idle on %s: host wait %.3f ms, kernel wait %.3f ms, other %.3f ms "
            "(busy %.3f ms)",
            idle.lane.c_str(), static_cast<double>(idle.hostWaitNs) / 1e6,
            static_cast<double>(idle.kernelWaitNs) / 1e6, static_cast<double>(idle.otherNs) / 1e6,
            static_cast<double>(idle.busyNs) / 1e6);
    }
    if (a.copyOverlap.total.copies > 0) {
        ImGui::Text("Copy/compute overlap: %.3f, exposed copy %.3f ms per step",
                    a.copyOverlap.total.overlapRatio(), a.copyOverlap.exposedMsPerStep());
    }
    if (a.bubbles.workers > 0) {
        ImGui::Text("Bubble ratio %.2f%% over %zu workers (%s)", 100 * a.bubbles.ratio,
                    a.bubbles.workers, a.bubbles.breakdownText().c_str());
    }
    if (a.findings.empty()) {
        ImGui::TextDisabled("Advisor: %s.", kNoFindingsText);
    }
    for (const Finding& f : a.findings) {
        ImGui::Bullet();
        ImGui::TextWrapped("Advisor [%s] %s: up to %.3f ms per step. %s. Fix: %s.", f.rule.c_str(),
                           toggleText(f).c_str(), f.savingMsPerStep, f.evidence.c_str(),
                           f.fix.c_str());
    }
    perLayerTable(a.perLayer, r.run.id);
}

class DashboardPanel : public Panel {
  public:
    const char* name() const override { return "A/B dashboard"; }

    Area area() const override { return Area::kMain; }

    void draw(PanelContext& c) override {
        const Results* results = c.workspace.results();
        if (results == nullptr) {
            ImGui::TextWrapped(c.workspace.loading()
                                   ? "Loading and analyzing the selected runs..."
                                   : "Open a database and pick runs in the Runs panel.");
            return;
        }
        for (const Comparison& comparison : results->comparisons) {
            const AbComparison& cmp = comparison.ab;
            const MetricComparison* primary = cmp.metric(cmp.primaryMetric);
            ImGui::Text("%s: runs %lld (A, baseline) vs %lld (B, optimized)", cmp.toggle.c_str(),
                        static_cast<long long>(cmp.baselineRun),
                        static_cast<long long>(cmp.optimizedRun));
            const char* loss = !cmp.lossRecorded ? "not recorded"
                               : cmp.lossEqual   ? "bit-identical"
                                                 : "DIFFERS";
            // With a target, its verdict and the end-to-end one are the A/B's verdicts.
            if (primary != nullptr && !cmp.target) {
                ImGui::TextWrapped("Verdict (%s): %s, %s; loss %s", toString(cmp.primaryMetric),
                                   verdictText(cmp.verdict(), *primary).c_str(),
                                   speedupText(*primary).c_str(), loss);
            } else {
                ImGui::Text("Loss %s at every step", loss);
            }
            if (cmp.target)
                ImGui::TextWrapped("Target: %s", targetVerdictText(*cmp.target).c_str());
            ImGui::TextWrapped("End to end: %s", endToEndVerdictText(cmp).c_str());
            if (const std::string load = loadDriftText(cmp); !load.empty())
                ImGui::TextWrapped("Machine load: %s", load.c_str());
            double top = 0.0;
            for (const MetricComparison& m : cmp.metrics)
                top = std::max({top, m.baseline, m.optimized});
            for (const MetricComparison& m : cmp.metrics) {
                ImGui::TextUnformatted(m.name());
                horizontalBar(m.baseline, top, kBaselineColour,
                              fmt::format("A {:.3f} ms", m.baseline));
                horizontalBar(m.optimized, top, kOptimizedColour,
                              fmt::format("B {:.3f} ms  {}", m.optimized, speedupText(m)));
            }
            // The counters, as the text and the reports list them: what the change did, counted.
            std::string counters;
            for (const CounterComparison& k : cmp.counters) {
                counters +=
                    fmt::format("{}{} {} -> {}{}", counters.empty() ? "" : ", ", k.name,
                                countText(k.baseline), countText(k.optimized),
                                k.baselineConstant && k.optimizedConstant ? "" : " (varies)");
            }
            if (!counters.empty()) ImGui::TextWrapped("Counters per step: %s", counters.c_str());
            ImGui::Separator();
        }
        ImGui::Checkbox("non-math only", &m_nonMathOnly);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "fold the math into the label; glue, copy, sync wait and idle to "
                "their own scale");
        TimestampNs widest = 0;
        for (const RunAnalysis& r : results->runs) {
            for (const GlueStep& s : r.analysis.glue.steps) {
                widest =
                    std::max(widest, m_nonMathOnly ? s.wallNs - s.part(GluePart::kMath) : s.wallNs);
            }
        }
        glueLegend();
        for (const RunAnalysis& r : results->runs) {
            ImGui::Separator();
            ImGui::PushID(static_cast<int>(r.run.id));
            runSection(r, widest, m_nonMathOnly);
            ImGui::PopID();
        }
    }

  private:
    bool m_nonMathOnly = false;
};

}  // namespace

std::unique_ptr<Panel> makeDashboardPanel() { return std::make_unique<DashboardPanel>(); }

}  // namespace glueprof::gui
