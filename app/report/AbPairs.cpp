#include "app/report/AbPairs.h"

#include <fmt/format.h>

namespace glueprof {

bool armsOfOneAb(const RunSummary& reference, const RunSummary& compared) {
    return reference.identity.abGroup != 0 &&
           reference.identity.abGroup == compared.identity.abGroup &&
           reference.identity.isReferenceArm() && compared.identity.isComparedArm();
}

std::string pairName(const RunSummary& reference, const RunSummary& compared) {
    if (armsOfOneAb(reference, compared) && !compared.identity.toggle.empty()) {
        return compared.identity.toggle;
    }
    return fmt::format("run {} vs {}", reference.id, compared.id);
}

std::map<std::string, AbPair> latestAbPairs(const std::vector<RunSummary>& runs) {
    std::map<RunId, const RunSummary*> reference;  // A/B group -> its complete reference arm
    for (const RunSummary& run : runs) {
        if (run.identity.abGroup != 0 && run.identity.isReferenceArm() &&
            run.displayStatus() == "complete") {
            reference[run.identity.abGroup] = &run;
        }
    }
    std::map<std::string, AbPair> pairs;
    for (const RunSummary& compared : runs) {  // in id order: the newest pair of a name wins
        if (compared.identity.abGroup == 0 || !compared.identity.isComparedArm() ||
            compared.displayStatus() != "complete")
            continue;
        auto found = reference.find(compared.identity.abGroup);
        if (found == reference.end()) continue;
        AbPair pair{*found->second, compared};
        pairs[pair.name()] = pair;
    }
    return pairs;
}

std::optional<AbPair> newestAbPair(const std::vector<RunSummary>& runs) {
    std::optional<AbPair> newest;
    for (const auto& [name, pair] : latestAbPairs(runs)) {
        if (!newest || pair.optimized.id > newest->optimized.id) newest = pair;
    }
    return newest;
}

}  // namespace glueprof
