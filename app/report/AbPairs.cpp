#include "app/report/AbPairs.h"

namespace glueprof {

namespace {
const std::string kBaselineSuffix = ":baseline";
const std::string kOptimizedSuffix = ":optimized";

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::string toggleFromLabel(const std::string& label) {
    auto colon = label.rfind(':');
    return colon == std::string::npos ? label : label.substr(0, colon);
}

std::map<std::string, AbPair> latestAbPairs(const std::vector<RunSummary>& runs) {
    std::map<std::string, AbPair> pairs;
    for (const RunSummary& optimized : runs) {
        if (!endsWith(optimized.label, kOptimizedSuffix) || optimized.displayStatus() != "complete")
            continue;
        const std::string toggle = toggleFromLabel(optimized.label);
        for (const RunSummary& baseline : runs) {
            if (baseline.id < optimized.id && baseline.label == toggle + kBaselineSuffix &&
                baseline.displayStatus() == "complete") {
                pairs[toggle] =
                    AbPair{baseline, optimized};  // runs are in id order: the last one wins
            }
        }
    }
    return pairs;
}

std::optional<AbPair> newestAbPair(const std::vector<RunSummary>& runs) {
    std::optional<AbPair> newest;
    for (const auto& [toggle, pair] : latestAbPairs(runs)) {
        if (!newest || pair.optimized.id > newest->optimized.id) newest = pair;
    }
    return newest;
}

}  // namespace glueprof
