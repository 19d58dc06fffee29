#pragma once
// Stage partitions for the simulator.
//
// RoundPipe's automatic partitioner, as described in the paper and its artifact: a job is one stage
// for one micro-batch; the heaviest job unit is the heaviest layer of the model, the LM head's
// fused forward + backward included. For target stage costs T between that and 1.1x it, layers are
// packed greedily into consecutive stages of cost <= T and memory <= the cap; the target with the
// lowest stages x T wins, and its stage count is then balanced (earlier stages take the remainder).
// The forward partition packs forward costs; the backward partition packs recompute + backward
// costs and starts with the head stage (0 layers). On the artifact's 1.7B model this gives 4 x 7
// and 0, 8 x 3, 2, 2 — its published partitions.
//
// Looped-BFS (glueprof's default, not RoundPipe's): k x P stages with k = max(1, (layers + 1) / P),
// the last one the LM head with 0 layers, the layers balanced over the others with the larger
// stages last.
#include <vector>

#include "optimizations/pipeline_schedule/PipelineSimulator.h"

namespace glueprof::pipeline {

struct MemoryCap {
    std::vector<double> layerBytes;  // per layer; empty = no cap
    double capBytes = 0.0;           // a stage's layers must fit; 0 = no cap
};

struct RoundPipePartition {
    std::vector<int> forward;
    std::vector<int> backward;
    double forwardTargetMs = 0.0;
    double backwardTargetMs = 0.0;
};

RoundPipePartition roundPipePartition(const PipelineCosts& costs, const MemoryCap& memory = {});
std::vector<int> loopedBfsPartition(int layers, int workers);

}  // namespace glueprof::pipeline
