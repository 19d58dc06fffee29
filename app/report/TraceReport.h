#pragma once
// The trace report (`glueprof report`, and the GUI's export): one run, or a baseline and an
// optimized run, with everything the analyzers say about them. Built once, rendered as
// self-contained HTML (inline SVG, no network), Markdown or JSON. Every trace-derived string is
// escaped by the renderer.
#include <optional>
#include <string>
#include <vector>

#include "analyzers/AbComparison.h"
#include "analyzers/Analysis.h"
#include "analyzers/CopyOverlap.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct GanttBar {
    std::size_t worker = 0;
    std::string kind;  // forward, recompute, backward
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
};

struct ReportRun {
    RunSummary run;
    AnalysisResult analysis;
    std::vector<Diagnostic> diagnostics;
    std::int32_t stripStep = kNoTag;  // the measured step shown in the overlap strip
    TimestampNs stripStartNs = 0;
    TimestampNs stripEndNs = 0;
    std::vector<CopySpan> stripCopies;
    std::vector<std::string> workers;  // worker lane names (pipeline runs)
    std::vector<GanttBar> gantt;
};

struct TraceReport {
    std::vector<ReportRun> runs;             // one, or baseline then optimized
    std::optional<AbComparison> comparison;  // with two runs
};

// `traces`: one run, or baseline and optimized. `toggle` names the comparison ("" = from the
// labels); `primaryMetric` is the metric its verdict is about (the toggle's, from the registry, for
// callers that know it).
TraceReport buildTraceReport(const std::vector<const TraceModel*>& traces,
                             const std::string& toggle = "",
                             const std::string& primaryMetric = "step_ms");

std::string renderReportMarkdown(const TraceReport& report);
std::string renderReportJson(const TraceReport& report);
std::string renderReportHtml(const TraceReport& report);

}  // namespace glueprof
