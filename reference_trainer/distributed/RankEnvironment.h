#pragma once
// Where this process stands in a multi-process run: its rank, the world size and the rendezvous
// (a c10d TCPStore served by rank 0), read from the launcher environment that torchrun, srun
// wrappers and `glueprof --nproc` all set: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT.
// Torch-free.
#include <optional>
#include <string>

namespace glueprof {

struct RankEnvironment {
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;  // the GPU of this rank on its machine (cuda:LOCAL_RANK)
    std::string masterAddr = "127.0.0.1";
    int masterPort = 29500;
};

// The environment's rank, or nullopt when WORLD_SIZE is unset (one process). Throws a usage error
// naming the variable and the fix for a partial or malformed one (RANK without WORLD_SIZE, RANK not
// below WORLD_SIZE, a port outside 1..65535, ...).
std::optional<RankEnvironment> rankEnvironmentFromProcess();

// Sets the variables above for a child process of `glueprof --nproc` (in this process's environ;
// call it between fork and exec).
void exportRankEnvironment(const RankEnvironment& environment);

// The file a rank records into while the run lasts: DB.rank-R (rank 0 merges them into DB at the
// end; RankMerge.h).
std::string rankTracePath(const std::string& db, int rank);

}  // namespace glueprof
