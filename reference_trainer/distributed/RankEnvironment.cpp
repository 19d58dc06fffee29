#include "reference_trainer/distributed/RankEnvironment.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "profiler/core/Error.h"

namespace glueprof {
namespace {

const char* variable(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : nullptr;
}

// The integer value of `name`, within [low, high]; a usage error otherwise.
int integerVariable(const char* name, const char* value, long low, long high) {
    char* end = nullptr;
    errno = 0;
    const long parsed = std::strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || parsed < low || parsed > high) {
        throw usageError(fmt::format("{}='{}' is not an integer from {} to {}; fix or unset it",
                                     name, value, low, high));
    }
    return static_cast<int>(parsed);
}

constexpr int kMaxWorldSize = 4096;

}  // namespace

std::optional<RankEnvironment> rankEnvironmentFromProcess() {
    const char* world = variable("WORLD_SIZE");
    const char* rank = variable("RANK");
    if (world == nullptr) {
        if (rank != nullptr) {
            throw usageError(
                "RANK is set but WORLD_SIZE is not; set both (as torchrun does) or neither");
        }
        return std::nullopt;
    }
    RankEnvironment environment;
    environment.worldSize = integerVariable("WORLD_SIZE", world, 1, kMaxWorldSize);
    if (rank == nullptr) {
        throw usageError(
            "WORLD_SIZE is set but RANK is not; set both (as torchrun does) or neither");
    }
    environment.rank = integerVariable("RANK", rank, 0, environment.worldSize - 1);
    const char* local = variable("LOCAL_RANK");
    environment.localRank =
        local != nullptr ? integerVariable("LOCAL_RANK", local, 0, kMaxWorldSize - 1) : 0;
    if (const char* addr = variable("MASTER_ADDR")) environment.masterAddr = addr;
    if (const char* port = variable("MASTER_PORT"))
        environment.masterPort = integerVariable("MASTER_PORT", port, 1, 65535);
    return environment;
}

void exportRankEnvironment(const RankEnvironment& e) {
    ::setenv("RANK", std::to_string(e.rank).c_str(), 1);
    ::setenv("WORLD_SIZE", std::to_string(e.worldSize).c_str(), 1);
    ::setenv("LOCAL_RANK", std::to_string(e.localRank).c_str(), 1);
    ::setenv("MASTER_ADDR", e.masterAddr.c_str(), 1);
    ::setenv("MASTER_PORT", std::to_string(e.masterPort).c_str(), 1);
}

std::string rankTracePath(const std::string& db, int rank) {
    return fmt::format("{}.rank-{}", db, rank);
}

}  // namespace glueprof
