#include "app/report/AbReport.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "app/report/Findings.h"
#include "profiler/core/Error.h"

namespace glueprof {

namespace {

std::string counterCell(double value) { return fmt::format("{:g}", value); }

std::string speedupCell(const MetricComparison& m) {
    return fmt::format("{:.3f}x [{:.3f}, {:.3f}]", m.speedup, m.speedupLow, m.speedupHigh);
}

bool hasHostSyncs(const AbReportEntry& e) {
    return e.baselineSyncs.hostSyncsCaptured || e.optimizedSyncs.hostSyncsCaptured;
}

bool hasPipeline(const AbReportEntry& e) {
    return e.baselineBubbles.workers > 0 || e.optimizedBubbles.workers > 0;
}

nlohmann::json bubblesJson(const BubbleResult& b) {
    nlohmann::json breakdown = nlohmann::json::object();
    for (const auto& [name, part] : b.breakdown()) breakdown[name] = part;
    return {{"workers", b.workers},
            {"ratio", b.ratio},
            {"makespan_ms", b.medianStepMakespanMs()},  // the median measured step's
            {"breakdown", breakdown}};
}

bool hasCopies(const AbReportEntry& e) {
    return e.baselineOverlap.total.copies > 0 || e.optimizedOverlap.total.copies > 0;
}

nlohmann::json overlapJson(const CopyOverlapResult& r) {
    nlohmann::json byName = nlohmann::json::object();
    for (const auto& [name, t] : r.byName) {
        byName[name] = {{"copies", t.copies},
                        {"copy_ms", static_cast<double>(t.copyNs) / 1e6},
                        {"overlap_ratio", t.overlapRatio()}};
    }
    return {{"copies", r.total.copies},
            {"bytes", r.total.bytes},
            {"copy_ms_per_step", r.copyMsPerStep()},
            {"exposed_copy_ms_per_step", r.exposedMsPerStep()},
            {"overlap_ratio", r.total.overlapRatio()},
            {"compute", r.computeFromKernels ? "kernels" : "host ops"},
            {"by_name", byName}};
}

std::string verdictLine(const AbComparison& c) {
    const MetricComparison* m = c.metric(c.primaryMetric);
    std::string line = toString(c.verdict());
    if (m != nullptr) line += fmt::format(" ({} {})", c.primaryMetric, speedupCell(*m));
    return line;
}

}  // namespace

std::string renderAbTable(const AbReport& report) {
    std::string out = fmt::format(
        "glueprof A/B: preset {} on {}, {} block(s) x {} step(s) per arm after {} warm-up "
        "step(s)\n",
        report.preset, report.device, report.repeats, report.steps, report.warmup);
    if (!report.gpuCapture.empty()) out += fmt::format("GPU capture: {}\n", report.gpuCapture);
    for (const AbReportEntry& entry : report.entries) {
        const AbComparison& c = entry.comparison;
        out += fmt::format("\n{} (runs {} vs {})\n", c.toggle, c.baselineRun, c.optimizedRun);
        out += fmt::format("  {:<34} {:>12} {:>12}   {}\n", "metric (median)", "baseline",
                           "optimized", "speedup [95% CI]");
        for (const MetricComparison& m : c.metrics) {
            out += fmt::format("  {:<34} {:>12.3f} {:>12.3f}   {}\n", m.name, m.baseline,
                               m.optimized, speedupCell(m));
        }
        for (const CounterComparison& k : c.counters) {
            out += fmt::format(
                "  {:<34} {:>12} {:>12}{}\n", k.name, counterCell(k.baseline),
                counterCell(k.optimized),
                k.baselineConstant && k.optimizedConstant ? "" : "   (varies per step)");
        }
        if (hasCopies(entry)) {
            const CopyOverlapResult& b = entry.baselineOverlap;
            const CopyOverlapResult& o = entry.optimizedOverlap;
            out += fmt::format("  {:<34} {:>12.3f} {:>12.3f}\n", "copy_overlap_ratio",
                               b.total.overlapRatio(), o.total.overlapRatio());
            out += fmt::format("  {:<34} {:>12.3f} {:>12.3f}\n", "exposed_copy_ms_per_step",
                               b.exposedMsPerStep(), o.exposedMsPerStep());
        }
        if (hasPipeline(entry)) {
            out += fmt::format("  {:<34} {:>12.3f} {:>12.3f}\n", "pipeline_bubble_ratio",
                               entry.baselineBubbles.ratio, entry.optimizedBubbles.ratio);
            out += fmt::format("  {:<34} {:>12.3f} {:>12.3f}\n", "pipeline_makespan_ms",
                               entry.baselineBubbles.medianStepMakespanMs(),
                               entry.optimizedBubbles.medianStepMakespanMs());
        }
        if (hasHostSyncs(entry)) {  // the GPU's real syncs (CUPTI), beside the CPU counters above
            out += fmt::format("  {:<34} {:>12g} {:>12g}\n", "host_syncs_per_step",
                               entry.baselineSyncs.medianHostSyncsPerStep,
                               entry.optimizedSyncs.medianHostSyncsPerStep);
            out += fmt::format("  {:<34} {:>12.3f} {:>12.3f}\n", "sync_blocked_ms",
                               entry.baselineSyncs.medianSyncBlockedMs,
                               entry.optimizedSyncs.medianSyncBlockedMs);
        }
        out += fmt::format("  {:<34} {}\n", "loss",
                           c.lossEqual ? "equal, bit for bit, at every step"
                                       : fmt::format("DIFFERS (final {:.6f} vs {:.6f})",
                                                     c.baselineFinalLoss, c.optimizedFinalLoss));
        out += fmt::format("  {:<34} {}\n", "verdict", verdictLine(c));
        for (const Diagnostic& d : entry.diagnostics) {
            out += fmt::format("  diagnostic: {} = {} ({})\n", d.name, d.value, d.detail);
        }
    }
    for (const AbReport::Skipped& skipped : report.skipped) {
        out += fmt::format("\n{}: skipped, {}\n", skipped.toggle, skipped.reason);
    }
    out += fmt::format("\ndatabase: {}\n", report.db);
    if (!report.reportPath.empty()) out += fmt::format("report:   {}\n", report.reportPath);
    return out;
}

std::string renderAbJson(const AbReport& report) {
    nlohmann::json comparisons = nlohmann::json::array();
    for (const AbReportEntry& entry : report.entries) {
        const AbComparison& c = entry.comparison;
        nlohmann::json metrics = nlohmann::json::array();
        for (const MetricComparison& m : c.metrics) {
            metrics.push_back({{"name", m.name},
                               {"baseline", m.baseline},
                               {"optimized", m.optimized},
                               {"speedup", m.speedup},
                               {"speedup_ci", {m.speedupLow, m.speedupHigh}},
                               {"samples", {m.baselineSamples, m.optimizedSamples}}});
        }
        nlohmann::json counters = nlohmann::json::array();
        for (const CounterComparison& k : c.counters) {
            counters.push_back({{"name", k.name},
                                {"baseline", k.baseline},
                                {"optimized", k.optimized},
                                {"constant", k.baselineConstant && k.optimizedConstant}});
        }
        nlohmann::json diagnostics = nlohmann::json::array();
        for (const Diagnostic& d : entry.diagnostics) {
            diagnostics.push_back({{"name", d.name}, {"value", d.value}, {"detail", d.detail}});
        }
        nlohmann::json comparison = {
            {"toggle", c.toggle},
            {"runs", {{"baseline", c.baselineRun}, {"optimized", c.optimizedRun}}},
            {"primary_metric", c.primaryMetric},
            {"verdict", toString(c.verdict())},
            {"metrics", metrics},
            {"counters", counters},
            {"loss_equal", c.lossEqual},
            {"diagnostics", diagnostics}};
        if (hasHostSyncs(entry)) {
            comparison["host_syncs_per_step"] = {
                {"baseline", entry.baselineSyncs.medianHostSyncsPerStep},
                {"optimized", entry.optimizedSyncs.medianHostSyncsPerStep}};
            comparison["sync_blocked_ms"] = {
                {"baseline", entry.baselineSyncs.medianSyncBlockedMs},
                {"optimized", entry.optimizedSyncs.medianSyncBlockedMs}};
        }
        if (hasPipeline(entry)) {
            comparison["pipeline_bubbles"] = {{"baseline", bubblesJson(entry.baselineBubbles)},
                                              {"optimized", bubblesJson(entry.optimizedBubbles)}};
        }
        if (hasCopies(entry)) {
            comparison["copy_overlap"] = {{"baseline", overlapJson(entry.baselineOverlap)},
                                          {"optimized", overlapJson(entry.optimizedOverlap)}};
        }
        comparisons.push_back(comparison);
    }
    nlohmann::json skipped = nlohmann::json::array();
    for (const AbReport::Skipped& s : report.skipped) {
        skipped.push_back({{"toggle", s.toggle}, {"reason", s.reason}});
    }
    nlohmann::json j = {
        {"preset", report.preset},
        {"device", report.device},
        {"gpu_capture", report.gpuCapture},
        {"db", report.db},
        {"report", report.reportPath},
        {"schedule",
         {{"warmup", report.warmup}, {"steps", report.steps}, {"repeats", report.repeats}}},
        {"comparisons", comparisons},
        {"skipped", skipped}};
    return j.dump(2);
}

std::string renderAbMarkdown(const AbReport& report) {
    std::string md = "# glueprof A/B report\n\n";
    md += fmt::format(
        "Preset `{}` on `{}`; {} block(s) of {} step(s) per arm, interleaved, after {} "
        "warm-up step(s). Database: `{}`.\n\n",
        report.preset, report.device, report.repeats, report.steps, report.warmup, report.db);
    if (!report.gpuCapture.empty()) md += fmt::format("GPU capture: {}.\n\n", report.gpuCapture);
    md +=
        "| toggle | verdict | primary metric | speedup [95% CI] | loss |\n|---|---|---|---|---|\n";
    for (const AbReportEntry& entry : report.entries) {
        const AbComparison& c = entry.comparison;
        const MetricComparison* m = c.metric(c.primaryMetric);
        md += fmt::format("| `{}` | {} | {} | {} | {} |\n", c.toggle, toString(c.verdict()),
                          c.primaryMetric, m != nullptr ? speedupCell(*m) : "-",
                          c.lossEqual ? "bit-identical" : "differs");
    }
    for (const AbReport::Skipped& skipped : report.skipped) {
        md += fmt::format("| `{}` | skipped | - | - | {} |\n", skipped.toggle, skipped.reason);
    }
    for (const AbReportEntry& entry : report.entries) {
        const AbComparison& c = entry.comparison;
        md += fmt::format("\n## `{}` (run {} vs run {})\n\n", c.toggle, c.baselineRun,
                          c.optimizedRun);
        md +=
            "| metric (median ms) | baseline | optimized | speedup [95% CI] "
            "|\n|---|---:|---:|---|\n";
        for (const MetricComparison& m : c.metrics) {
            md += fmt::format("| {} | {:.3f} | {:.3f} | {} |\n", m.name, m.baseline, m.optimized,
                              speedupCell(m));
        }
        md += "\n| counter (per step) | baseline | optimized |\n|---|---:|---:|\n";
        for (const CounterComparison& k : c.counters) {
            md += fmt::format("| {} | {} | {} |\n", k.name, counterCell(k.baseline),
                              counterCell(k.optimized));
        }
        if (hasCopies(entry)) {
            const CopyOverlapResult& b = entry.baselineOverlap;
            const CopyOverlapResult& o = entry.optimizedOverlap;
            md += fmt::format(
                "\n| copies (per measured step) | baseline | optimized |\n|---|---:|---:|\n"
                "| copy ms | {:.3f} | {:.3f} |\n| exposed copy ms | {:.3f} | {:.3f} |\n"
                "| copy/compute overlap ratio | {:.3f} | {:.3f} |\n",
                b.copyMsPerStep(), o.copyMsPerStep(), b.exposedMsPerStep(), o.exposedMsPerStep(),
                b.total.overlapRatio(), o.total.overlapRatio());
        }
        if (hasPipeline(entry)) {
            const BubbleResult& b = entry.baselineBubbles;
            const BubbleResult& o = entry.optimizedBubbles;
            md += fmt::format(
                "\n| pipeline (executed, per measured step) | baseline | optimized "
                "|\n|---|---:|---:|\n"
                "| workers | {} | {} |\n| makespan ms (median step) | {:.3f} | {:.3f} |\n| bubble "
                "ratio | {:.1f}% | {:.1f}% |\n",
                b.workers, o.workers, b.medianStepMakespanMs(), o.medianStepMakespanMs(),
                100 * b.ratio, 100 * o.ratio);
            const auto before = b.breakdown();
            const auto after = o.breakdown();
            for (std::size_t k = 0; k < before.size(); ++k) {
                md += fmt::format("| {} | {:.1f}% | {:.1f}% |\n", before[k].first,
                                  100 * before[k].second, 100 * after[k].second);
            }
        }
        if (hasHostSyncs(entry)) {
            md += fmt::format(
                "\nHost syncs captured on the GPU (CUPTI): {:g} -> {:g} per step, blocking {:.3f} "
                "-> {:.3f} ms "
                "per step.\n",
                entry.baselineSyncs.medianHostSyncsPerStep,
                entry.optimizedSyncs.medianHostSyncsPerStep,
                entry.baselineSyncs.medianSyncBlockedMs, entry.optimizedSyncs.medianSyncBlockedMs);
        }
        md +=
            "\n### Sync points per measured step, by op\n\n| op | baseline | optimized "
            "|\n|---|---:|---:|\n";
        auto perStep = [](const SyncPointsResult& r, const std::string& op) {
            for (const SyncGroup& g : r.byOp) {
                if (g.key == op)
                    return static_cast<double>(g.count) /
                           std::max<std::size_t>(1, r.perStep.size());
            }
            return 0.0;
        };
        std::vector<std::string> ops;
        for (const SyncGroup& g : entry.baselineSyncs.byOp) ops.push_back(g.key);
        for (const SyncGroup& g : entry.optimizedSyncs.byOp) {
            if (std::find(ops.begin(), ops.end(), g.key) == ops.end()) ops.push_back(g.key);
        }
        for (const std::string& op : ops) {
            md += fmt::format("| `{}` | {:g} | {:g} |\n", op, perStep(entry.baselineSyncs, op),
                              perStep(entry.optimizedSyncs, op));
        }
        md += "\n### Advisor on the baseline run\n\n" +
              renderFindingsMarkdown(entry.baselineFindings);
        if (!entry.diagnostics.empty()) {
            md += "\n### Diagnostics\n\n";
            for (const Diagnostic& d : entry.diagnostics) {
                md += fmt::format("- **{}** = {}: {}\n", d.name, d.value, d.detail);
            }
        }
    }
    return md;
}

void writeFileAtomically(const std::string& path, const std::string& contents) {
    writeFileAtomically(path, [&](std::ostream& out) { out << contents; });
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) {
            throw inputError(
                fmt::format("cannot write '{}': check the directory exists and is "
                            "writable, or choose another path",
                            path));
        }
        write(out);
        out.flush();
        if (!out) {
            std::remove(temporary.c_str());
            throw inputError(
                fmt::format("writing '{}' failed (disk full?); nothing was written", path));
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::remove(temporary.c_str());
        throw inputError(
            fmt::format("cannot move the finished file to '{}': {}", path, ec.message()));
    }
}

}  // namespace glueprof
