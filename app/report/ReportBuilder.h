#pragma once
// The report's one document (ReportDocument.h), built from the results in one traversal: the
// title and setup, every A/B's verdicts, the runs, each comparison, the ranks of data-parallel runs
// and each run's sections. The Markdown and HTML writers only render it.
#include "app/report/ReportDocument.h"
#include "app/report/Results.h"

namespace glueprof {

// The document points into `results`, which must outlive it.
ReportDocument buildReportDocument(const Results& results);

// One run's sections (ReportRunSections.cpp): where its steps' time goes, the device tables, the
// sync points, copies, pipeline, advisor and diagnostics. `widestNs` and `widestNonMathNs` scale
// the step bars alike across the report's runs.
void addRunSections(ReportDocument& doc, const RunAnalysis& run, TimestampNs widestNs,
                    TimestampNs widestNonMathNs);

// The anchor of a comparison's section, which the summary table links to.
std::string comparisonAnchor(const AbComparison& comparison);

}  // namespace glueprof
