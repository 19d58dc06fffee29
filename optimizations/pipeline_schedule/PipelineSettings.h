#pragma once
// Whether the reference trainer runs as a pipeline, and how: the `roundpipe` toggle's setting.
#include <string>
#include <vector>

namespace glueprof {

enum class PipelineMode {
    kOff,        // one worker: the plain trainer
    kLoopedBfs,  // stages bound to workers (stage s on worker s mod P): the roundpipe toggle's
                 // baseline
    kRoundPipe,  // stages dealt round-robin to a stateless worker pool (synchronous optimizer)
};

struct PipelineSettings {
    PipelineMode mode = PipelineMode::kOff;
    int workers = 2;           // virtual workers (threads) on this machine
    int threadsPerWorker = 1;  // intra-op threads of each worker
    // Looped-BFS stages (layers per stage, a multiple of `workers` stages, the last one also runs
    // the LM head); empty = the default partition. RoundPipe always uses its automatic partitioner.
    std::vector<int> loopedBfsPartition;
    // RoundPipe only: the optimizer of step k runs while step k + 1 computes on the weights before
    // update k (one step stale, deterministic); false = synchronous.
    bool asyncOptimizer = false;
};

inline const char* toString(PipelineMode mode) {
    switch (mode) {
        case PipelineMode::kOff:
            return "off";
        case PipelineMode::kLoopedBfs:
            return "looped-bfs";
        case PipelineMode::kRoundPipe:
            return "roundpipe";
    }
    return "?";
}

}  // namespace glueprof
