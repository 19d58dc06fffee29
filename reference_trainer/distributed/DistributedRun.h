#pragma once
// A data-parallel run of the reference trainer, seen from one rank: join the process group, put
// the clocks on one timeline, record into the rank's own file, and (rank 0) merge every rank's
// file into the database at the end. The CLI's entry to torch.distributed. Torch-free.
#include <chrono>
#include <string>
#include <vector>

#include "optimizations/ToggleRegistry.h"
#include "profiler/ranks/RankEnvironment.h"
#include "profiler/ranks/RankMerge.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/AbSuite.h"
#include "reference_trainer/TrainConfig.h"

namespace glueprof {

struct RankRunRequest {
    RankEnvironment environment;
    std::string db;  // where the merged runs go; the rank records into rankTracePath()
    std::chrono::milliseconds timeout{std::chrono::seconds(120)};  // rendezvous and collectives
    CaptureSession::Notice notice;  // rank 0's notices (the others keep quiet)
    ProgressCallback progress;      // likewise
};

// `glueprof run` on this rank (every rank calls it with the same config). Returns, on rank 0, the
// merged runs (one per rank); on the others an empty result. A rank whose peers fail sees an
// error from its collectives within the timeout.
MergedRanks runSingleOnRanks(const TrainConfig& config, const std::vector<const Toggle*>& toggles,
                             int warmup, int steps, const RankRunRequest& request);

// `glueprof ab` on this rank (every rank calls it with the same request): each toggle's A/B runs
// on every rank in the same interleaved blocks, the arms' gradients averaged across ranks. On rank
// 0 the comparisons name rank 0's merged arms (the other ranks' arms share their group: AbPairs.h
// rankSiblings); the other ranks get only the toggles skipped. `request.db` is ignored: the
// database is `rankRequest.db`.
AbOutcome runAbSuiteOnRanks(const AbRequest& request, const RankRunRequest& rankRequest,
                            const AbProgress& progress);

}  // namespace glueprof
