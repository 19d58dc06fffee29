#pragma once
// Where this process stands in a multi-process run: its rank, the world size and the rendezvous
// (a c10d TCPStore served by rank 0), read from the launcher environment that torchrun, srun
// wrappers and `glueprof --nproc` all set: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT.
// Torch-free.
#include <optional>
#include <string>
#include <vector>

namespace glueprof {

struct RankEnvironment {
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;  // the GPU of this rank on its machine (cuda:LOCAL_RANK; else
                        // OMPI_COMM_WORLD_LOCAL_RANK or SLURM_LOCALID; else 0)
    std::string masterAddr = "127.0.0.1";
    int masterPort = 29500;
    // Names this launch's rank files (GLUEPROF_LAUNCH_ID, set by `glueprof --nproc`); "" under
    // another launcher: rank 0 then makes one and shares it through the rendezvous store.
    std::string launchId;
};

// A new launch id: this process's PID, a dash, then 12 hex digits from the kernel's random source
// ("4242-9f3a0c11d2e7"). The PID says whose launch it is: while that process lives, its rank files
// are its own (mergeLeftoverRankTraces leaves them alone).
std::string newLaunchId();

// The PID of the process that made `launchId` (its last dash-separated field but one, when that is
// all digits), or 0 for an id without one (an earlier glueprof's: 12 hex digits only).
int launchOwnerPid(const std::string& launchId);

// The environment's rank, or nullopt when WORLD_SIZE is unset (one process). Throws a usage error
// naming the variable and the fix for a partial or malformed one (RANK without WORLD_SIZE, RANK not
// below WORLD_SIZE, a port outside 1..65535, ...).
std::optional<RankEnvironment> rankEnvironmentFromProcess();

// The variables above for a rank's process, as NAME=value (RANK, WORLD_SIZE, LOCAL_RANK,
// MASTER_ADDR, MASTER_PORT, and GLUEPROF_LAUNCH_ID when set).
std::vector<std::string> rankEnvironmentVariables(const RankEnvironment& environment);
// Whether NAME=value text sets one of those variables.
bool isRankEnvironmentVariable(const std::string& assignment);

// The file a rank records into while the run lasts: DB.LAUNCH.rank-R (rank 0 merges them into DB
// at the end; RankMerge.h).
std::string rankTracePath(const std::string& db, const std::string& launchId, int rank);

}  // namespace glueprof
