#include "profiler/core/RunMetadata.h"

#include <fmt/format.h>

#include "profiler/core/Error.h"

namespace glueprof {

const char* environmentKeyName(EnvironmentKey key) {
    switch (key) {
#define GLUEPROF_ENVIRONMENT_KEY_NAME(id, name, meaning) \
    case EnvironmentKey::id:                             \
        return name;
        GLUEPROF_ENVIRONMENT_KEYS(GLUEPROF_ENVIRONMENT_KEY_NAME)
#undef GLUEPROF_ENVIRONMENT_KEY_NAME
    }
    return "";
}

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

RunEnvironment runEnvironmentOf(const RunSummary& run) {
    const nlohmann::json env = parseStoredRunJson(run, StoredRunColumn::kEnvironment);
    RunEnvironment r;
    const auto capture = env.find(envKey(EnvironmentKey::kGpuCapture));
    if (capture != env.end() && capture->is_string()) r.gpuCapture = capture->get<std::string>();
    const auto cost = env.find(envKey(EnvironmentKey::kTracingNsPerOp));
    if (cost != env.end()) {
        r.tracingCostRecorded = true;
        if (cost->is_number()) r.tracingNsPerOp = cost->get<double>();
    }
    const auto clock = env.find(envKey(EnvironmentKey::kClockAlignment));
    if (clock != env.end() && clock->is_object()) {
        RankClockAlignment a;
        a.offsetNs = clock->value("offset_ns", 0.0);
        a.estimateNs = clock->value("estimate_ns", 0.0);
        a.residualNs = clock->value("residual_ns", 0.0);
        a.sameMachine = clock->value("same_machine_as_rank_0", false);
        r.clockAlignment = a;
    }
    return r;
}

nlohmann::json storedObjectOrEmpty(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_object() ? j : nlohmann::json::object();
}

std::string targetRangeOf(const RunSummary& run) {
    const nlohmann::json config = parseStoredRunJson(run, StoredRunColumn::kConfig);
    const auto range = config.find("target_range");
    return range != config.end() && range->is_string() ? range->get<std::string>() : "";
}

std::string gpuNamesOf(const RunSummary& run) {
    const nlohmann::json config = storedObjectOrEmpty(run.configJson);
    const auto devices = config.find("devices");
    std::string names;
    if (devices == config.end() || !devices->is_array()) return names;
    for (const nlohmann::json& device : *devices) {
        if (!device.is_object()) continue;
        const auto name = device.find("name");
        if (name == device.end() || !name->is_string()) continue;
        names += (names.empty() ? "" : "; ") + name->get<std::string>();
    }
    return names;
}

bool stepsFoundOf(const RunSummary& run) {
    // Lenient: a damaged column says nothing against steps (the reports name the damage).
    const nlohmann::json config = storedObjectOrEmpty(run.configJson);
    const auto found = config.find("steps_found");
    return found == config.end() || !found->is_boolean() || found->get<bool>();
}

}  // namespace glueprof
