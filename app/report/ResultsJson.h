#pragma once
// The JSON of the results model, each result type serialized here and nowhere else: `ab --json`,
// `report --format json`, `run --json`, `compare --json`, `simulate --json` and the GUI's
// --dump-state are made of these, so they agree field for field.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analyzers/RankAnalysis.h"
#include "analyzers/TraceDiff.h"
#include "app/report/CompareResults.h"
#include "app/report/Results.h"
#include "app/report/SimulationResults.h"

namespace glueprof {

nlohmann::json toJson(const Diagnostic& diagnostic);
nlohmann::json toJson(const std::vector<Diagnostic>& diagnostics);
nlohmann::json toJson(const CopyOverlapResult& overlap);
nlohmann::json toJson(const BubbleResult& bubbles);
nlohmann::json toJson(const PerLayerWorkResult& work);            // ops every layer issues per step
nlohmann::json toJson(const std::vector<StreamIdle>& streams);    // HTA's idle breakdown per stream
nlohmann::json toJson(const LaunchStatsResult& launches);         // kernel launch statistics
nlohmann::json toJson(const DeviceTimelineResult& timeline);      // HTA's and TraceLens's views
nlohmann::json toJson(const KernelBreakdownResult& kernels);      // HTA's kernel breakdown
nlohmann::json toJson(const QueueLengthResult& queues);           // HTA's queue length per stream
nlohmann::json toJson(const std::vector<NamedDurations>& names);  // per name: count, ms, ...
nlohmann::json toJson(const Percentiles& percentiles);            // p50, p90, p99, max
nlohmann::json toJson(const std::vector<LaunchPair>& pairs);      // launch outliers
nlohmann::json toJson(const GlueOverheadResult& glue);            // median ms per part
nlohmann::json toJson(const RankAnalysisResult& ranks);
nlohmann::json toJson(const RunIdentity& identity);
nlohmann::json toJson(const RunAnalysis& run);
// The comparison with both runs' figures it is shown with (copy overlap, bubbles, host syncs).
nlohmann::json toJson(const Comparison& comparison, const Results& results);
nlohmann::json toJson(const Results& results);

std::string renderResultsJson(const Results& results);  // toJson, indented, newline-terminated

nlohmann::json toJson(const TraceDiffResult& diff);
// The pair's results with its diff under "diff".
nlohmann::json toJson(const CompareResults& compared);
nlohmann::json toJson(const SimulatedSchedule& simulation);
// One simulation is its object, several are under "simulations"; each names the database, and
// --predict adds "predictions".
nlohmann::json toJson(const SimulationResults& results);

// Every JSON glueprof writes goes through here: indented, and text that is not valid UTF-8 (a
// label, a name read from a trace or a database) is written with U+FFFD in place of the bad bytes
// instead of failing the whole output (nlohmann's error_handler_t::replace).
std::string jsonText(const nlohmann::json& j, int indent = 2);

}  // namespace glueprof
