#include "optimizations/pipeline_schedule/CostFile.h"
#include "optimizations/pipeline_schedule/CostKeys.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace glueprof::pipeline {

namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& path, const std::string& what) {
    throw std::invalid_argument(fmt::format("cost file '{}': {}", path, what));
}

double number(const json& j, const char* field, const std::string& path, double fallback,
              bool required) {
    if (!j.contains(field)) {
        if (required) bad(path, fmt::format("'{}' is missing: give it in milliseconds", field));
        return fallback;
    }
    if (!j[field].is_number() || j[field].get<double>() < 0)
        bad(path, fmt::format("'{}' must be a number >= 0", field));
    return j[field].get<double>();
}

// A per-layer cost: one number for every layer, or an array of `layers` numbers.
std::vector<double> perLayer(const json& j, const char* field, int layers, const std::string& path,
                             bool required) {
    if (!j.contains(field)) {
        if (required)
            bad(path, fmt::format("'{}' is missing: a number (every layer) or an array of {}",
                                  field, layers));
        return {};
    }
    const json& v = j[field];
    if (v.is_number()) {
        if (v.get<double>() < 0) bad(path, fmt::format("'{}' must be >= 0", field));
        return std::vector<double>(static_cast<std::size_t>(layers), v.get<double>());
    }
    if (!v.is_array() || v.size() != static_cast<std::size_t>(layers)) {
        bad(path, fmt::format("'{}' must be a number or an array of {} numbers (one per layer)",
                              field, layers));
    }
    std::vector<double> out;
    for (const json& x : v) {
        if (!x.is_number() || x.get<double>() < 0)
            bad(path, fmt::format("'{}' holds a value that is not a number >= 0", field));
        out.push_back(x.get<double>());
    }
    return out;
}

std::vector<int> partition(const json& v, const std::string& name, const std::string& path) {
    if (!v.is_array() || v.empty())
        bad(path, fmt::format("partition '{}' must be a non-empty array of layer counts", name));
    std::vector<int> out;
    for (const json& x : v) {
        if (!x.is_number_integer() || x.get<int>() < 0) {
            bad(path,
                fmt::format("partition '{}' holds a value that is not a layer count >= 0", name));
        }
        out.push_back(x.get<int>());
    }
    return out;
}

}  // namespace

CostFile parseCostFile(const std::string& text, const std::string& path) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) bad(path, "not a JSON object");
    if (j.value("format", std::string()) != "glueprof-pipeline-costs-1") {
        bad(path, "'format' must be \"glueprof-pipeline-costs-1\"");
    }
    if (!j.contains(costkeys::kLayers) || !j[costkeys::kLayers].is_number_integer() ||
        j[costkeys::kLayers].get<int>() <= 0) {
        bad(path, "'layers' must be a positive integer");
    }
    const int layers = j[costkeys::kLayers].get<int>();
    CostFile f;
    f.source = j.value("source", std::string());
    f.costs.forwardMs = perLayer(j, costkeys::kForwardMs, layers, path, true);
    f.costs.backwardMs = perLayer(j, costkeys::kBackwardMs, layers, path, true);
    f.costs.recomputeMs = perLayer(j, costkeys::kRecomputeMs, layers, path, false);
    f.costs.headForwardMs = number(j, costkeys::kHeadForwardMs, path, 0.0, true);
    f.costs.headBackwardMs = number(j, costkeys::kHeadBackwardMs, path, 0.0, true);
    f.costs.hopMs = number(j, costkeys::kHopMs, path, 0.0, false);
    f.costs.optimizerMs = number(j, costkeys::kOptimizerMs, path, 0.0, false);
    for (const char* field : {"workers", "microbatches"}) {
        if (!j.contains(field)) continue;
        if (!j[field].is_number_integer() || j[field].get<int>() <= 0)
            bad(path, fmt::format("'{}' must be a positive integer", field));
    }
    f.workers = j.value("workers", 0);
    f.microbatches = j.value("microbatches", 0);
    if (j.contains("partitions")) {
        const json& p = j["partitions"];
        if (!p.is_object()) bad(path, "'partitions' must be an object keyed by schedule");
        for (const auto& [name, value] : p.items()) {
            if (name == "roundpipe") {
                if (!value.is_object() || !value.contains("forward") ||
                    !value.contains("backward")) {
                    bad(path,
                        "partition 'roundpipe' must be {\"forward\": [...], \"backward\": [...]}");
                }
                f.partitions["roundpipe-forward"] =
                    partition(value["forward"], "roundpipe.forward", path);
                f.partitions["roundpipe-backward"] =
                    partition(value["backward"], "roundpipe.backward", path);
            } else {
                parseSchedule(name);  // throws on an unknown schedule name
                f.partitions[name] = partition(value, name, path);
            }
        }
    }
    return f;
}

CostFile loadCostFile(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument(
            fmt::format("cannot read the cost file '{}': check the path", path));
    std::stringstream text;
    text << in.rdbuf();
    return parseCostFile(text.str(), path);
}

}  // namespace glueprof::pipeline
