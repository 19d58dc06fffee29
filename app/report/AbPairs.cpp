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

namespace {
// A run's rank within its A/B: 0 outside a data-parallel launch (an imported trace may name its
// rank of a job it is the only trace of).
int rankInGroup(const RunSummary& run) {
    return run.identity.isRankOfSeveral() ? *run.identity.rank : 0;
}
}  // namespace

std::map<std::string, AbPair> latestAbPairs(const std::vector<RunSummary>& runs) {
    // (A/B group, rank) -> its complete reference arm.
    std::map<std::pair<RunId, int>, const RunSummary*> reference;
    for (const RunSummary& run : runs) {
        if (run.identity.abGroup != 0 && run.identity.isReferenceArm() &&
            run.displayStatus() == "complete") {
            reference[{run.identity.abGroup, rankInGroup(run)}] = &run;
        }
    }
    // Per group, the pair of its lowest rank with both arms complete (rank 0's, unless its file
    // was lost).
    std::map<RunId, AbPair> lowest;
    for (const RunSummary& compared : runs) {
        if (compared.identity.abGroup == 0 || !compared.identity.isComparedArm() ||
            compared.displayStatus() != "complete")
            continue;
        auto found = reference.find({compared.identity.abGroup, rankInGroup(compared)});
        if (found == reference.end()) continue;
        auto [it, added] =
            lowest.try_emplace(compared.identity.abGroup, AbPair{*found->second, compared});
        if (!added && rankInGroup(compared) < rankInGroup(it->second.optimized))
            it->second = AbPair{*found->second, compared};
    }
    std::map<std::string, AbPair> pairs;
    for (const auto& [group, pair] : lowest) {  // in group order: the newest pair of a name wins
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

std::vector<RunSummary> rankSiblings(const RunSummary& run, const std::vector<RunSummary>& runs) {
    const RunIdentity& identity = run.identity;
    if (!identity.isRankOfSeveral() || identity.abGroup == 0) return {run};
    std::map<int, RunSummary> byRank;
    for (const RunSummary& other : runs) {
        const RunIdentity& o = other.identity;
        if (o.abGroup == identity.abGroup && o.arm == identity.arm && o.rank &&
            o.worldSize == identity.worldSize && o.toggle == identity.toggle)
            byRank.emplace(*o.rank, other);  // a group holds one run per rank and role
    }
    byRank[*identity.rank] = run;
    std::vector<RunSummary> siblings;
    for (auto& [rank, sibling] : byRank) siblings.push_back(std::move(sibling));
    return siblings;
}

}  // namespace glueprof
