#include "app/report/StoredRunJson.h"

#include <fmt/format.h>

#include "profiler/core/Error.h"

namespace glueprof {

namespace {

struct ColumnShape {
    const char* name;
    const std::string RunSummary::*text;
    bool array;  // else an object
};

ColumnShape shapeOf(StoredRunColumn column) {
    switch (column) {
        case StoredRunColumn::kConfig:
            return {"config_json", &RunSummary::configJson, false};
        case StoredRunColumn::kToggles:
            return {"toggles_json", &RunSummary::togglesJson, true};
        case StoredRunColumn::kEnvironment:
            return {"environment_json", &RunSummary::environmentJson, false};
    }
    return {"config_json", &RunSummary::configJson, false};
}

}  // namespace

nlohmann::json parseStoredRunJson(const RunSummary& run, StoredRunColumn column) {
    const ColumnShape shape = shapeOf(column);
    const nlohmann::json j =
        nlohmann::json::parse(run.*shape.text, nullptr, /*allow_exceptions=*/false);
    const char* kind = shape.array ? "array" : "object";
    std::string what;
    if (j.is_discarded()) {
        what = "is not valid JSON";
    } else if (shape.array ? !j.is_array() : !j.is_object()) {
        what = fmt::format("is JSON of another kind ({}), not an {}", j.type_name(), kind);
    } else {
        return j;
    }
    throw inputError(fmt::format(
        "run {}'s stored configuration is damaged: runs.{} {} (edited by hand, or a damaged "
        "file); set it back to a JSON {} ({} when unknown) or record the run again",
        run.id, shape.name, what, kind, shape.array ? "[]" : "{}"));
}

}  // namespace glueprof
