#include "app/usecases/StoredRuns.h"

#include <fmt/format.h>

#include <algorithm>

#include "app/report/AbPairs.h"
#include "profiler/core/Error.h"
#include "profiler/core/RunMetadata.h"

namespace glueprof {

RunId chooseRun(const TraceReader& reader, RunId requested, const std::string& db) {
    if (requested != 0) return requested;
    std::vector<RunSummary> runs = reader.listRuns();
    if (runs.empty())
        throw inputError(fmt::format("'{}' holds no runs: record one with `glueprof run`", db));
    return runs.back().id;
}

ReportOutcome runReport(const ReportRequest& request) {
    TraceReader reader(request.db);
    ReportOutcome out;
    ResultsSelection selection;
    out.runs = request.runs;
    if (out.runs.empty()) {
        // Every toggle's latest A/B (what `make run` did), in the order they ran; else the
        // latest run.
        std::vector<AbPair> pairs;
        for (const auto& [name, pair] : latestAbPairs(reader.listRuns())) pairs.push_back(pair);
        std::sort(pairs.begin(), pairs.end(),
                  [](const AbPair& a, const AbPair& b) { return a.optimized.id < b.optimized.id; });
        for (const AbPair& pair : pairs)
            out.pairs.emplace_back(pair.baseline.id, pair.optimized.id);
        selection.pairs = out.pairs;
        if (pairs.empty()) out.runs = {chooseRun(reader, 0, request.db)};
    }
    if (out.runs.size() == 2) {
        selection.pairs.emplace_back(out.runs[0], out.runs[1]);
    } else if (out.runs.size() == 1) {
        selection.runs = out.runs;
    }
    out.results = buildResults(reader, request.db, selection);
    return out;
}

TraceModel loadStoredRun(const RunRequest& request) {
    TraceReader reader(request.db);
    return reader.loadRun(chooseRun(reader, request.run, request.db));
}

AnalyzedRun analyzeStoredRun(const RunRequest& request) {
    AnalyzedRun out;
    out.model = loadStoredRun(request);
    out.analysis = analyze(out.model);
    out.stepsFound = stepsFoundOf(out.model.run());
    return out;
}

}  // namespace glueprof
