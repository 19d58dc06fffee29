#include "app/report/RunSummary.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/report/Findings.h"

namespace glueprof {

namespace {
double mib(std::int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

nlohmann::json glueJson(const GlueOverheadResult& glue) {
    nlohmann::json parts = nlohmann::json::object();
    if (glue.medianMsPerPart.empty()) return parts;
    for (std::size_t p = 0; p < kGluePartCount; ++p) {
        parts[toString(static_cast<GluePart>(p))] = glue.medianMsPerPart[p];
    }
    return parts;
}
}  // namespace

namespace {

// The run's GPU capture line, from its environment ("" for runs recorded before it was stored).
std::string gpuCaptureOf(const RunSummary& run) {
    const nlohmann::json env = nlohmann::json::parse(run.environmentJson, nullptr, false);
    if (!env.is_object() || !env.contains("gpu_capture") || !env["gpu_capture"].is_string())
        return "";
    return env["gpu_capture"].get<std::string>();
}

}  // namespace

std::string renderRunSummary(const RunSummary& run, const AnalysisResult& a, const std::string& db,
                             const ProcessStats& process,
                             const std::vector<Diagnostic>& diagnostics) {
    std::string out = fmt::format(
        "run {} ({}): preset {} on {}, status {}, {} steps ({} measured)\n", run.id, run.label,
        run.preset, run.device, run.displayStatus(), run.stepCount, a.steps.measured.size());
    if (const std::string capture = gpuCaptureOf(run); !capture.empty())
        out += "GPU capture: " + capture + "\n";
    out += fmt::format("  {:<24} {:>10.3f}\n", "step_ms (median)", a.steps.medianWallMs);
    out += fmt::format("  {:<24} {:>10.3f}\n", "forward_ms (median)", a.steps.medianForwardMs);
    out += fmt::format("  {:<24} {:>10.3f}\n", "backward_ms (median)", a.steps.medianBackwardMs);
    out += fmt::format("  {:<24} {:>10.3f}\n", "optimizer_ms (median)", a.steps.medianOptimizerMs);
    if (process.peakRssBytes > 0) {
        out += fmt::format("  {:<24} {:>10.1f}\n", "peak host memory (MiB)",
                           mib(process.peakRssBytes));
    }
    out += "  where a step's time goes (median ms; math > glue > copy > sync wait > idle):\n";
    for (std::size_t p = 0; p < kGluePartCount; ++p) {
        out += fmt::format("    {:<22} {:>10.3f}\n", toString(static_cast<GluePart>(p)),
                           a.glue.medianMsPerPart[p]);
    }
    out += fmt::format("  {:<24} {:>10g}\n", "sync points per step", a.syncPoints.medianPerStep);
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
    }
    out += "  advisor:\n" + renderFindingsText(a.findings);
    for (const Diagnostic& d : diagnostics)
        out += fmt::format("  diagnostic: {} = {} ({})\n", d.name, d.value, d.detail);
    out += fmt::format("database: {}\n", db);
    return out;
}

std::string renderRunSummaryJson(const RunSummary& run, const AnalysisResult& a,
                                 const std::string& db, const ProcessStats& process,
                                 const std::vector<Diagnostic>& diagnostics) {
    nlohmann::json byOp = nlohmann::json::array();
    for (const SyncGroup& g : a.syncPoints.byOp)
        byOp.push_back({{"op", g.key}, {"count", g.count}});
    nlohmann::json steps = nlohmann::json::array();
    for (const StepTimes& t : a.steps.measured) {
        steps.push_back({{"step", t.step},
                         {"wall_ms", t.wallMs},
                         {"forward_ms", t.forwardMs},
                         {"backward_ms", t.backwardMs},
                         {"optimizer_ms", t.optimizerMs},
                         {"loss", t.loss}});
    }
    nlohmann::json j = {{"db", db},
                        {"run", run.id},
                        {"label", run.label},
                        {"status", run.displayStatus()},
                        {"step_ms", a.steps.medianWallMs},
                        {"forward_ms", a.steps.medianForwardMs},
                        {"backward_ms", a.steps.medianBackwardMs},
                        {"optimizer_ms", a.steps.medianOptimizerMs},
                        {"peak_rss_mib", mib(process.peakRssBytes)},
                        {"glue_breakdown_ms", glueJson(a.glue)},
                        {"non_math_share", a.glue.medianNonMathShare},
                        {"sync_points_per_step", a.syncPoints.medianPerStep},
                        {"sync_points_by_op", byOp},
                        {"findings", findingsJson(a.findings)},
                        {"steps", steps},
                        {"gpu_capture", gpuCaptureOf(run)}};
    if (a.syncPoints.hostSyncsCaptured) {
        j["host_syncs_per_step"] = a.syncPoints.medianHostSyncsPerStep;
        j["sync_blocked_ms"] = a.syncPoints.medianSyncBlockedMs;
    }
    nlohmann::json lost = nlohmann::json::array();
    for (const Diagnostic& d : diagnostics)
        lost.push_back({{"name", d.name}, {"value", d.value}, {"detail", d.detail}});
    j["diagnostics"] = lost;
    return j.dump(2);
}

}  // namespace glueprof
