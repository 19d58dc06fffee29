#include "profiler/ranks/RankEnvironment.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>

#include <unistd.h>

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
    // The rank's GPU on its machine: LOCAL_RANK, else what Open MPI's mpirun or srun set for it
    // (a wrapper that exports only RANK and WORLD_SIZE would otherwise put every rank on GPU 0).
    // mpirun first: inside a Slurm job its ranks may inherit the job step's SLURM_LOCALID.
    for (const char* name : {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) {
        if (const char* local = variable(name)) {
            environment.localRank = integerVariable(name, local, 0, kMaxWorldSize - 1);
            break;
        }
    }
    if (const char* addr = variable("MASTER_ADDR")) environment.masterAddr = addr;
    if (const char* port = variable("MASTER_PORT"))
        environment.masterPort = integerVariable("MASTER_PORT", port, 1, 65535);
    if (const char* launch = variable("GLUEPROF_LAUNCH_ID")) {
        environment.launchId = launch;
        if (environment.launchId.size() > 32 ||
            environment.launchId.find_first_not_of("0123456789abcdef-") != std::string::npos) {
            throw usageError(fmt::format(
                "GLUEPROF_LAUNCH_ID='{}' is not up to 32 lowercase hex digits and dashes; unset it",
                environment.launchId));
        }
    }
    return environment;
}

std::vector<std::string> rankEnvironmentVariables(const RankEnvironment& e) {
    std::vector<std::string> variables = {
        fmt::format("RANK={}", e.rank), fmt::format("WORLD_SIZE={}", e.worldSize),
        fmt::format("LOCAL_RANK={}", e.localRank), fmt::format("MASTER_ADDR={}", e.masterAddr),
        fmt::format("MASTER_PORT={}", e.masterPort)};
    if (!e.launchId.empty()) variables.push_back("GLUEPROF_LAUNCH_ID=" + e.launchId);
    return variables;
}

bool isRankEnvironmentVariable(const std::string& assignment) {
    for (const char* name : {"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "MASTER_ADDR=", "MASTER_PORT=",
                             "GLUEPROF_LAUNCH_ID="}) {
        if (assignment.rfind(name, 0) == 0) return true;
    }
    return false;
}

std::string newLaunchId() {
    std::ifstream random("/dev/urandom", std::ios::binary);
    unsigned char bytes[6] = {};
    random.read(reinterpret_cast<char*>(bytes), sizeof(bytes));
    std::string id = fmt::format("{}-", ::getpid());
    for (unsigned char b : bytes) id += fmt::format("{:02x}", b);
    return id;
}

int launchOwnerPid(const std::string& launchId) {
    const auto last = launchId.rfind('-');
    if (last == std::string::npos || last == 0) return 0;
    const auto before = launchId.rfind('-', last - 1);
    const std::size_t start = before == std::string::npos ? 0 : before + 1;
    const std::string field = launchId.substr(start, last - start);
    if (field.empty() || field.size() > 9 ||
        field.find_first_not_of("0123456789") != std::string::npos)
        return 0;
    return std::stoi(field);
}

std::string rankTracePath(const std::string& db, const std::string& launchId, int rank) {
    return fmt::format("{}.{}.rank-{}", db, launchId, rank);
}

}  // namespace glueprof
