#include "optimizations/pipeline_schedule/CostFile.h"
#include "optimizations/pipeline_schedule/CostKeys.h"

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
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
    if (!j[field].is_number() || !isValidCostMs(j[field].get<double>()))
        bad(path, fmt::format("'{}' must be a number of milliseconds from 0 to {:.0f}", field,
                              kMaxCostMs));
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
        if (!isValidCostMs(v.get<double>())) {
            bad(path, fmt::format("'{}' must be a number of milliseconds from 0 to {:.0f}", field,
                                  kMaxCostMs));
        }
        return std::vector<double>(static_cast<std::size_t>(layers), v.get<double>());
    }
    if (!v.is_array() || v.size() != static_cast<std::size_t>(layers)) {
        bad(path, fmt::format("'{}' must be a number or an array of {} numbers (one per layer)",
                              field, layers));
    }
    std::vector<double> out;
    for (const json& x : v) {
        if (!x.is_number() || !isValidCostMs(x.get<double>())) {
            bad(path, fmt::format("'{}' holds a value that is not a number of milliseconds from "
                                  "0 to {:g}",
                                  field, kMaxCostMs));
        }
        out.push_back(x.get<double>());
    }
    return out;
}

// A whole number from MIN to MAX, or nullopt (a fraction, text, or out of range).
std::optional<std::uint64_t> wholeNumber(const json& v, std::uint64_t min, std::uint64_t max) {
    if (!v.is_number_integer()) return std::nullopt;
    if (!v.is_number_unsigned() && v.get<std::int64_t>() < 0) return std::nullopt;
    const std::uint64_t n = v.get<std::uint64_t>();
    if (n < min || n > max) return std::nullopt;
    return n;
}

// A required count from 1 to MAX; a larger one names the bound (it would not fit in memory).
int boundedCount(const json& j, const char* field, int max, const std::string& path) {
    const auto positive = j.contains(field) ? wholeNumber(j[field], 1, UINT64_MAX) : std::nullopt;
    if (!positive) bad(path, fmt::format("'{}' must be a positive integer", field));
    if (*positive > static_cast<std::uint64_t>(max)) {
        bad(path, fmt::format("'{}' is {}, more than the {} glueprof simulates; lower it", field,
                              *positive, max));
    }
    return static_cast<int>(*positive);
}

std::vector<int> partition(const json& v, const std::string& name, const std::string& path) {
    if (!v.is_array() || v.empty())
        bad(path, fmt::format("partition '{}' must be a non-empty array of layer counts", name));
    if (v.size() > static_cast<std::size_t>(kMaxLayers) + 1) {
        bad(path, fmt::format("partition '{}' has {} stages, more than the {} glueprof simulates",
                              name, v.size(), kMaxLayers + 1));
    }
    std::vector<int> out;
    for (const json& x : v) {
        const auto layers = wholeNumber(x, 0, kMaxLayers);
        if (!layers) {
            bad(path, fmt::format("partition '{}' holds a value that is not a layer count from 0 "
                                  "to {}",
                                  name, kMaxLayers));
        }
        out.push_back(static_cast<int>(*layers));
    }
    return out;
}

}  // namespace

CostFile parseCostFile(const std::string& text, const std::string& path) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) bad(path, "not a JSON object");
    if (!j.contains("format") || j["format"] != "glueprof-pipeline-costs-1") {
        bad(path, "'format' must be \"glueprof-pipeline-costs-1\"");
    }
    const int layers = boundedCount(j, costkeys::kLayers, kMaxLayers, path);
    CostFile f;
    if (j.contains("source") && !j["source"].is_string()) bad(path, "'source' must be a string");
    f.source = j.value("source", std::string());
    f.costs.forwardMs = perLayer(j, costkeys::kForwardMs, layers, path, true);
    f.costs.backwardMs = perLayer(j, costkeys::kBackwardMs, layers, path, true);
    f.costs.recomputeMs = perLayer(j, costkeys::kRecomputeMs, layers, path, false);
    f.costs.headForwardMs = number(j, costkeys::kHeadForwardMs, path, 0.0, true);
    f.costs.headBackwardMs = number(j, costkeys::kHeadBackwardMs, path, 0.0, true);
    f.costs.hopMs = number(j, costkeys::kHopMs, path, 0.0, false);
    f.costs.optimizerMs = number(j, costkeys::kOptimizerMs, path, 0.0, false);
    // The same bounds as the --workers and --microbatches flags.
    if (j.contains("workers")) f.workers = boundedCount(j, "workers", kMaxWorkers, path);
    if (j.contains("microbatches")) {
        f.microbatches = boundedCount(j, "microbatches", kMaxMicrobatches, path);
    }
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
