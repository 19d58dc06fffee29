#include "app/report/TraceReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "app/report/AbPairs.h"
#include "app/report/Findings.h"
#include "profiler/core/TraceNames.h"

namespace glueprof {

namespace {

ReportRun buildRun(const TraceModel& trace) {
    ReportRun r;
    r.run = trace.run();
    r.analysis = analyze(trace);
    r.diagnostics = trace.diagnostics();
    const std::set<std::int32_t> measured = trace.measuredSteps();
    if (!measured.empty()) {
        r.stripStep = *measured.begin();
        for (const StepInfo& s : trace.steps()) {
            if (s.step == r.stripStep) {
                r.stripStartNs = s.startNs;
                r.stripEndNs = s.endNs;
            }
        }
        r.stripCopies = copySpans(trace, r.stripStep);
    }
    // The Gantt shows one step: the first measured one (a simulation has one per iteration).
    const bool oneStep = !measured.empty();
    const std::int32_t ganttStep = oneStep ? *measured.begin() : kNoTag;
    for (std::size_t i = 0; i < trace.lanes().size(); ++i) {
        const Lane& lane = trace.lanes()[i];
        if (lane.kind != LaneKind::kPipelineWorker && lane.kind != LaneKind::kSimulatedWorker)
            continue;
        const std::size_t worker = r.workers.size();
        r.workers.push_back(lane.name);
        for (const Event& e : trace.eventsOnLane(i)) {
            const std::string& name = trace.name(e.name);
            if (e.kind == EventKind::kRange && (!oneStep || e.step == ganttStep) &&
                (name == names::kForward || name == names::kRecompute ||
                 name == names::kBackward)) {
                r.gantt.push_back(GanttBar{worker, name, e.startNs, e.endNs});
            }
        }
    }
    return r;
}

nlohmann::json runJson(const ReportRun& r) {
    const AnalysisResult& a = r.analysis;
    nlohmann::json glue = nlohmann::json::object();
    for (std::size_t p = 0; p < kGluePartCount && p < a.glue.medianMsPerPart.size(); ++p) {
        glue[toString(static_cast<GluePart>(p))] = a.glue.medianMsPerPart[p];
    }
    nlohmann::json perStep = nlohmann::json::array();
    for (const GlueStep& s : a.glue.steps) {
        nlohmann::json parts = nlohmann::json::object();
        for (std::size_t p = 0; p < kGluePartCount; ++p) {
            parts[toString(static_cast<GluePart>(p))] = static_cast<double>(s.partNs[p]) / 1e6;
        }
        perStep.push_back({{"step", s.step},
                           {"wall_ms", static_cast<double>(s.wallNs) / 1e6},
                           {"parts_ms", parts}});
    }
    nlohmann::json syncByLayer = nlohmann::json::array();
    for (const SyncGroup& g : a.syncPoints.byLayer)
        syncByLayer.push_back({{"layer", g.key}, {"count", g.count}});
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const Diagnostic& d : r.diagnostics) {
        diagnostics.push_back({{"name", d.name}, {"value", d.value}, {"detail", d.detail}});
    }
    nlohmann::json j = {
        {"run", r.run.id},
        {"label", r.run.label},
        {"preset", r.run.preset},
        {"device", r.run.device},
        {"status", r.run.displayStatus()},
        {"step_ms", a.steps.medianWallMs},
        {"forward_ms", a.steps.medianForwardMs},
        {"backward_ms", a.steps.medianBackwardMs},
        {"optimizer_ms", a.steps.medianOptimizerMs},
        {"glue_breakdown_ms", glue},
        {"glue_per_step", perStep},
        {"sync_points_per_step", a.syncPoints.medianPerStep},
        {"sync_points_by_layer", syncByLayer},
        {"copy_overlap_ratio", a.copyOverlap.total.overlapRatio()},
        {"exposed_copy_ms_per_step", a.copyOverlap.exposedMsPerStep()},
        {"findings", findingsJson(a.findings)},
        {"diagnostics", diagnostics},
    };
    if (a.bubbles.workers > 0) {
        j["bubbles"] = {{"workers", a.bubbles.workers},
                        {"makespan_ms", a.bubbles.medianStepMakespanMs()},  // per step
                        {"steps", a.bubbles.stepMakespansNs.size()},
                        {"ratio", a.bubbles.ratio}};
        for (const auto& [name, part] : a.bubbles.breakdown()) j["bubbles"][name] = part;
    }
    return j;
}

}  // namespace

TraceReport buildTraceReport(const std::vector<const TraceModel*>& traces,
                             const std::string& toggle, const std::string& primaryMetric) {
    TraceReport report;
    for (const TraceModel* trace : traces) report.runs.push_back(buildRun(*trace));
    if (traces.size() == 2) {
        const std::string name = toggle.empty() ? toggleFromLabel(traces[1]->run().label) : toggle;
        report.comparison = compareRuns(name, primaryMetric, *traces[0], *traces[1]);
    }
    return report;
}

std::string renderReportJson(const TraceReport& report) {
    nlohmann::json runs = nlohmann::json::array();
    for (const ReportRun& r : report.runs) runs.push_back(runJson(r));
    nlohmann::json j = {{"runs", runs}};
    if (report.comparison) {
        nlohmann::json metrics = nlohmann::json::array();
        for (const MetricComparison& m : report.comparison->metrics) {
            metrics.push_back({{"name", m.name},
                               {"baseline", m.baseline},
                               {"optimized", m.optimized},
                               {"speedup", m.speedup},
                               {"speedup_ci", {m.speedupLow, m.speedupHigh}}});
        }
        j["comparison"] = {{"toggle", report.comparison->toggle},
                           {"metrics", metrics},
                           {"primary_metric", report.comparison->primaryMetric},
                           {"verdict", toString(report.comparison->verdict())},
                           {"loss_equal", report.comparison->lossEqual}};
    }
    return j.dump(2) + "\n";
}

std::string renderReportMarkdown(const TraceReport& report) {
    // Markdown has no escaping for inline text that is safe everywhere; trace text goes in code
    // spans with backticks removed, so it cannot open links, HTML or emphasis.
    auto code = [](std::string text) {
        text.erase(std::remove(text.begin(), text.end(), '`'), text.end());
        return "`" + text + "`";
    };
    std::string md = "# glueprof report\n\n";
    for (const ReportRun& r : report.runs) {
        md += fmt::format("- run {} {}: preset {}, {}, {}\n", r.run.id, code(r.run.label),
                          code(r.run.preset), code(r.run.device), r.run.displayStatus());
    }
    if (report.comparison) {
        const AbComparison& c = *report.comparison;
        md += fmt::format(
            "\n## Before / after: {}\n\n| phase (median ms) | baseline | optimized | speedup [95% "
            "CI] |\n|---|---:|---:|---|\n",
            code(c.toggle));
        for (const MetricComparison& m : c.metrics) {
            md += fmt::format("| {} | {:.3f} | {:.3f} | {:.3f}x [{:.3f}, {:.3f}] |\n", m.name,
                              m.baseline, m.optimized, m.speedup, m.speedupLow, m.speedupHigh);
        }
        md += fmt::format("\nVerdict on {}: {}. Loss {} at every step.\n", c.primaryMetric,
                          toString(c.verdict()), c.lossEqual ? "bit-identical" : "DIFFERS");
    }
    for (const ReportRun& r : report.runs) {
        const AnalysisResult& a = r.analysis;
        md += fmt::format(
            "\n## Run {} {}\n\n### Where a step's time goes (median ms)\n\n| part | ms "
            "|\n|---|---:|\n",
            r.run.id, code(r.run.label));
        for (std::size_t p = 0; p < kGluePartCount && p < a.glue.medianMsPerPart.size(); ++p) {
            md += fmt::format("| {} | {:.3f} |\n", toString(static_cast<GluePart>(p)),
                              a.glue.medianMsPerPart[p]);
        }
        md += "\n### Sync points by layer (measured steps)\n\n| layer | count |\n|---|---:|\n";
        for (const SyncGroup& g : a.syncPoints.byLayer)
            md += fmt::format("| {} | {} |\n", code(g.key), g.count);
        if (a.copyOverlap.total.copies > 0) {
            md += fmt::format(
                "\n### Copy/compute overlap\n\nOverlap ratio {:.3f}, exposed copy {:.3f} ms per "
                "step, "
                "{} copies.\n",
                a.copyOverlap.total.overlapRatio(), a.copyOverlap.exposedMsPerStep(),
                a.copyOverlap.total.copies);
        }
        if (a.bubbles.workers > 0) {
            md += fmt::format(
                "\n### Pipeline bubbles\n\n{} workers, makespan {:.3f} ms per step (median of {}), "
                "bubble "
                "ratio {:.2f}% ({}).\n",
                a.bubbles.workers, a.bubbles.medianStepMakespanMs(),
                a.bubbles.stepMakespansNs.size(), 100 * a.bubbles.ratio, a.bubbles.breakdownText());
        }
        md += "\n### Advisor\n\n" + renderFindingsMarkdown(a.findings);
        if (!r.diagnostics.empty()) {
            md += "\n### Diagnostics\n\n";
            for (const Diagnostic& d : r.diagnostics) {
                md += fmt::format("- {} = {}: {}\n", code(d.name), d.value, code(d.detail));
            }
        }
    }
    return md;
}

}  // namespace glueprof
