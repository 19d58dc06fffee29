#include "app/cli/RunSelection.h"

#include <fmt/format.h>

#include "profiler/core/Error.h"

namespace glueprof::cli {

RunId chooseRun(const TraceReader& reader, RunId requested, const std::string& db) {
    if (requested != 0) return requested;
    std::vector<RunSummary> runs = reader.listRuns();
    if (runs.empty())
        throw inputError(fmt::format("'{}' holds no runs: record one with `glueprof run`", db));
    return runs.back().id;
}

}  // namespace glueprof::cli
