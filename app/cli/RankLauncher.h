#pragma once
// `glueprof run --nproc N`: N ranks of the same command on this machine, as torchrun would start
// them (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR=127.0.0.1, MASTER_PORT: a free loopback port).
// The launcher trains nothing itself: it waits for its ranks, and when one fails it stops the
// others (SIGTERM, then SIGKILL after a grace period), merges what the ranks recorded into the
// database (their runs end aborted with every finished step) and says which rank failed and how.
// Ctrl-C or SIGTERM to the launcher reaches every rank the same way. Ranks die with the launcher
// (PR_SET_PDEATHSIG): none is left behind.
#include <string>

namespace glueprof::cli {

// The command line this process was started with (main calls it first): what each rank runs.
void rememberCommandLine(int argc, char** argv);

// Runs `nproc` ranks; returns 0 when every rank ended with 0. Otherwise throws a GlueprofError
// naming the failed rank and how it ended, with its exit code (1-3; 2 for a rank killed by a
// signal or ending otherwise), or 128 + N when the launcher got signal N.
int launchRanks(int nproc, const std::string& db);

}  // namespace glueprof::cli
