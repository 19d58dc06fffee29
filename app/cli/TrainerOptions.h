#pragma once
// The trainer options shared by `run` and `ab`: preset, schedule and shape overrides.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/ranks/RankEnvironment.h"
#include "reference_trainer/TrainConfig.h"
#include "reference_trainer/distributed/DistributedRun.h"

namespace glueprof::cli {

struct TrainerOptions {
    std::string preset = "tiny";
    std::string device = "cpu";
    std::string docLengths;  // "" = the preset's
    double scale = 1.0;
    std::int64_t loraRank = -1;  // -1 = the preset's; 0 = full fine-tuning
    double loraAlpha = 0.0;      // 0 = the preset's
    bool qlora = false;
    std::string data;         // "" = synthetic documents
    std::int64_t seqLen = 0;  // 0 = the preset's
    std::int64_t layers = 0;
    std::int64_t hidden = 0;
    std::uint64_t seed = 1234;
    int steps = 4;
    int warmup = 2;
    std::string db = "runs.sqlite";
    bool json = false;
    int workers = 2;  // pipeline workers (the roundpipe toggle)
    int threadsPerWorker = 1;
    std::string partition;                 // Looped-BFS stages "L,L,..."; "" = the default
    std::int64_t microbatches = 0;         // 0 = the preset's
    bool asyncOptimizer = false;           // RoundPipe's asynchronous optimizer
    int nproc = 1;                         // ranks on this machine (data parallelism over c10d)
    int rankTimeoutSeconds = 120;          // the rendezvous's and each collective's limit
    double ddpBucketMb = 25.0;             // ddp_overlap's bucket size (MiB)
    double calibrationDelayPercent = 5.0;  // calibration_delay's baseline delay (% of a step)

    void addTo(CLI::App& command);
    // The preset with the overrides applied; throws usage errors for bad values.
    TrainConfig resolve() const;
    // This process's rank when a launcher (torchrun, or `--nproc`'s own) started it as one rank of
    // several; nullopt otherwise. A usage error when --nproc disagrees with WORLD_SIZE.
    std::optional<RankEnvironment> launchedRank() const;
    // What this rank of a multi-process run needs: the database, --rank-timeout, and notices on
    // the terminal (rank 0's; the others keep quiet).
    RankRunRequest rankRequest(const RankEnvironment& environment) const;
    // The ranks of the training into `config`: WORLD_SIZE under a launcher (`launched`, from
    // launchedRank()), else --nproc; a launched rank trains on the GPU of its local rank.
    void applyRank(const std::optional<RankEnvironment>& launched, TrainConfig& config) const;
};

}  // namespace glueprof::cli
