// The launcher environment a rank reads (RankEnvironment.h), set in this process for each case.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "profiler/core/Error.h"
#include "profiler/ranks/RankEnvironment.h"

namespace glueprof {
namespace {

// Sets the launcher variables for one test and removes them after it.
class LauncherVariables : public ::testing::Test {
  protected:
    void SetUp() override { clear(); }
    void TearDown() override { clear(); }
    static void clear() {
        for (const char* name : kNames) ::unsetenv(name);
    }
    static void set(const char* name, const char* value) { ::setenv(name, value, 1); }

    static constexpr const char* kNames[] = {
        "RANK",        "WORLD_SIZE",         "LOCAL_RANK",    "MASTER_ADDR",
        "MASTER_PORT", "GLUEPROF_LAUNCH_ID", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK"};
};

TEST_F(LauncherVariables, NoWorldSizeIsOneProcess) {
    EXPECT_FALSE(rankEnvironmentFromProcess().has_value());
    set("RANK", "0");
    EXPECT_THROW(rankEnvironmentFromProcess(), GlueprofError);  // RANK without WORLD_SIZE
}

TEST_F(LauncherVariables, TorchrunsVariablesNameTheRankItsGpuAndTheRendezvous) {
    set("RANK", "3");
    set("WORLD_SIZE", "4");
    set("LOCAL_RANK", "1");
    set("MASTER_ADDR", "node-a");
    set("MASTER_PORT", "29511");
    const RankEnvironment e = rankEnvironmentFromProcess().value();
    EXPECT_EQ(e.rank, 3);
    EXPECT_EQ(e.worldSize, 4);
    EXPECT_EQ(e.localRank, 1);
    EXPECT_EQ(e.masterAddr, "node-a");
    EXPECT_EQ(e.masterPort, 29511);
}

// Without LOCAL_RANK the GPU comes from Open MPI's local rank, then srun's local id (an mpirun
// inside a Slurm job may inherit the job step's); LOCAL_RANK wins over both.
TEST_F(LauncherVariables, TheLocalRankFallsBackToOpenMpisThenSrunsLocalId) {
    set("RANK", "5");
    set("WORLD_SIZE", "8");
    EXPECT_EQ(rankEnvironmentFromProcess()->localRank, 0);
    set("SLURM_LOCALID", "1");
    EXPECT_EQ(rankEnvironmentFromProcess()->localRank, 1);
    set("OMPI_COMM_WORLD_LOCAL_RANK", "2");
    EXPECT_EQ(rankEnvironmentFromProcess()->localRank, 2);
    set("LOCAL_RANK", "3");
    EXPECT_EQ(rankEnvironmentFromProcess()->localRank, 3);
}

// A launch id names the process that made it: while that process lives its rank files are its own.
TEST_F(LauncherVariables, ALaunchIdNamesTheProcessThatMadeIt) {
    EXPECT_EQ(launchOwnerPid(newLaunchId()), static_cast<int>(::getpid()));
    EXPECT_EQ(launchOwnerPid("profile-" + newLaunchId()), static_cast<int>(::getpid()));
    EXPECT_EQ(launchOwnerPid("profile-42-1733300000000000"), 42);  // an earlier profile's id
    EXPECT_EQ(launchOwnerPid("0123abcd9f3a"), 0);                  // an earlier launch's: no PID
    EXPECT_EQ(launchOwnerPid("ab-cd-ef"), 0);
    EXPECT_EQ(launchOwnerPid("-12"), 0);
    // The launcher hands its id to the ranks, dash and all.
    set("WORLD_SIZE", "2");
    set("RANK", "1");
    set("GLUEPROF_LAUNCH_ID", "4242-9f3a0c11d2e7");
    EXPECT_EQ(rankEnvironmentFromProcess()->launchId, "4242-9f3a0c11d2e7");
}

TEST_F(LauncherVariables, AMalformedLocalIdIsNamedWithItsVariable) {
    set("RANK", "0");
    set("WORLD_SIZE", "2");
    set("SLURM_LOCALID", "gpu1");
    try {
        rankEnvironmentFromProcess();
        FAIL() << "a malformed SLURM_LOCALID was accepted";
    } catch (const GlueprofError& error) {
        EXPECT_NE(std::string(error.what()).find("SLURM_LOCALID='gpu1' is not an integer"),
                  std::string::npos)
            << error.what();
    }
}

}  // namespace
}  // namespace glueprof
