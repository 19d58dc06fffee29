#include "app/cli/RunSelection.h"

#include <fmt/format.h>

#include "profiler/core/Error.h"

namespace glueprof::cli {

namespace {
const std::string kBaselineSuffix = ":baseline";
const std::string kOptimizedSuffix = ":optimized";

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

RunId chooseRun(const TraceReader& reader, RunId requested, const std::string& db) {
    if (requested != 0) return requested;
    std::vector<RunSummary> runs = reader.listRuns();
    if (runs.empty()) throw inputError(fmt::format("'{}' holds no runs: record one with `glueprof run`", db));
    return runs.back().id;
}

std::map<std::string, AbPair> latestAbPairs(const std::vector<RunSummary>& runs) {
    std::map<std::string, AbPair> pairs;
    for (const RunSummary& optimized : runs) {
        if (!endsWith(optimized.label, kOptimizedSuffix) || optimized.displayStatus() != "complete") continue;
        const std::string toggle = optimized.label.substr(0, optimized.label.size() - kOptimizedSuffix.size());
        for (const RunSummary& baseline : runs) {
            if (baseline.id < optimized.id && baseline.label == toggle + kBaselineSuffix &&
                baseline.displayStatus() == "complete") {
                pairs[toggle] = AbPair{baseline, optimized};  // runs are in id order: the last one wins
            }
        }
    }
    return pairs;
}

}  // namespace glueprof::cli
