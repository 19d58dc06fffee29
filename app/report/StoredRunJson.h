#pragma once
// The JSON columns of a stored run (runs.config_json, runs.toggles_json, runs.environment_json,
// docs/schema.md), parsed in one place. glueprof writes them; a value that is not JSON of its kind
// comes from a row edited by hand or a damaged file, and is an input error (exit 2) naming the run,
// the column and what to do, never a parser's message.
#include <nlohmann/json.hpp>

#include "profiler/core/TraceModel.h"

namespace glueprof {

enum class StoredRunColumn {
    kConfig,       // config_json: an object
    kToggles,      // toggles_json: an array
    kEnvironment,  // environment_json: an object
};

// The column of `run`, parsed; throws the input error when it is not JSON of its kind.
nlohmann::json parseStoredRunJson(const RunSummary& run, StoredRunColumn column);

}  // namespace glueprof
