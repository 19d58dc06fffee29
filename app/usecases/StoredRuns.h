#pragma once
// The database use cases (report, advise, export, compare, check): what each asks of a database,
// typed request in, typed results out (app/report), torch-free. The CLI and the GUI call them and
// render what they return.
#include <string>
#include <utility>
#include <vector>

#include "analyzers/Analysis.h"
#include "app/report/Results.h"
#include "profiler/core/TraceReader.h"

namespace glueprof {

// `requested`, or the newest run when it is 0; an input error when the database has none.
RunId chooseRun(const TraceReader& reader, RunId requested, const std::string& db);

// `glueprof report`: the runs of a report and its results.
struct ReportRequest {
    std::string db = "runs.sqlite";
    // One run, a pair (baseline, optimized); none: the latest A/B of every toggle, in the order
    // they ran, else the latest run.
    std::vector<RunId> runs;
};
struct ReportOutcome {
    std::vector<RunId> runs;                     // the runs asked for, or the latest one
    std::vector<std::pair<RunId, RunId>> pairs;  // the latest A/Bs, when none was asked for
    Results results;
};
ReportOutcome runReport(const ReportRequest& request);

// `glueprof advise` and `glueprof export`: one run, loaded and analyzed.
struct RunRequest {
    std::string db = "runs.sqlite";
    RunId run = 0;  // 0: the latest run
};
struct AnalyzedRun {
    TraceModel model = TraceModelBuilder().build();
    AnalysisResult analysis;
    // An imported trace without step ranges: one step over the whole trace.
    bool stepsFound = true;
};
AnalyzedRun analyzeStoredRun(const RunRequest& request);
// The run, loaded (an export that needs no analysis).
TraceModel loadStoredRun(const RunRequest& request);

}  // namespace glueprof
