#include "optimizations/pipeline_schedule/Partitioner.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace glueprof::pipeline {

namespace {

constexpr int kTargetSteps = 64;

// Stages needed to pack `costs` greedily under `target` and the memory cap; max() when a single
// layer does not fit.
int greedyStages(const std::vector<double>& costs, double target, const MemoryCap& memory) {
    int stages = 0;
    double cost = 0.0;
    double bytes = 0.0;
    bool open = false;
    for (std::size_t l = 0; l < costs.size(); ++l) {
        const double layerBytes = memory.layerBytes.empty() ? 0.0 : memory.layerBytes[l];
        if (costs[l] > target * (1 + 1e-12) ||
            (memory.capBytes > 0 && layerBytes > memory.capBytes)) {
            return std::numeric_limits<int>::max();
        }
        const bool fits = open && cost + costs[l] <= target * (1 + 1e-12) &&
                          (memory.capBytes <= 0 || bytes + layerBytes <= memory.capBytes);
        if (!fits) {
            ++stages;
            cost = 0.0;
            bytes = 0.0;
            open = true;
        }
        cost += costs[l];
        bytes += layerBytes;
    }
    return stages;
}

struct Choice {
    int stages = 0;
    double target = 0.0;
};

Choice bestTarget(const std::vector<double>& costs, double heaviest, const MemoryCap& memory) {
    Choice best{std::numeric_limits<int>::max(), 0.0};
    double bestScore = std::numeric_limits<double>::max();
    for (int i = 0; i <= kTargetSteps; ++i) {
        const double target = heaviest * (1.0 + 0.1 * i / kTargetSteps);
        const int stages = greedyStages(costs, target, memory);
        if (stages == std::numeric_limits<int>::max()) continue;
        const double score = stages * target;
        if (score < bestScore) {
            bestScore = score;
            best = Choice{stages, target};
        }
    }
    if (best.stages == std::numeric_limits<int>::max()) {
        throw std::invalid_argument("a single layer does not fit the memory cap: raise the cap");
    }
    return best;
}

}  // namespace

RoundPipePartition roundPipePartition(const PipelineCosts& costs, const MemoryCap& memory) {
    const std::size_t layers = costs.layers();
    if (layers == 0) throw std::invalid_argument("the model has no layers to partition");
    std::vector<double> forward(costs.forwardMs);
    std::vector<double> backward(layers);
    double heaviest = costs.headForwardMs + costs.headBackwardMs;
    for (std::size_t l = 0; l < layers; ++l) {
        backward[l] = costs.recompute(l) + costs.backwardMs[l];
        heaviest = std::max({heaviest, forward[l], backward[l]});
    }
    const Choice f = bestTarget(forward, heaviest, memory);
    const Choice b = bestTarget(backward, heaviest, memory);
    RoundPipePartition p;
    p.forward = balancedPartition(static_cast<int>(layers), f.stages);
    p.backward = balancedPartition(static_cast<int>(layers), b.stages);
    p.backward.insert(p.backward.begin(), 0);  // the LM head stage
    p.forwardTargetMs = f.target;
    p.backwardTargetMs = b.target;
    return p;
}

std::vector<int> loopedBfsPartition(int layers, int workers) {
    const int k = std::max(1, (layers + 1) / std::max(workers, 1));
    std::vector<int> partition = balancedPartition(layers, k * workers - 1);
    std::reverse(partition.begin(), partition.end());  // the larger stages last
    partition.push_back(0);                            // the LM head
    return partition;
}

}  // namespace glueprof::pipeline
