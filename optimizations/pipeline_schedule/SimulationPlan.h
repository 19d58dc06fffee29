#pragma once
// What `glueprof simulate` simulates: the shape (P and M) and each schedule's stage plan, from the
// user's choices, else the cost file's, else the partitioners (Partitioner.h). Pure: no store, no
// trainer.
#include <vector>

#include "optimizations/pipeline_schedule/CostFile.h"
#include "optimizations/pipeline_schedule/PipelineSimulator.h"

namespace glueprof::pipeline {

// What the user chose for every simulation of one request; 0 or empty: not chosen.
struct PlanChoices {
    int workers = 0;       // 0: the cost file's, else 2
    int microbatches = 0;  // 0: the cost file's (only with its P), else P + 1
    int iterations = 1;
    OptimizerMode optimizer = OptimizerMode::kSynchronous;
    std::vector<int> forwardPartition;   // layers per stage (RoundPipe: its forward partition)
    std::vector<int> backwardPartition;  // RoundPipe's, head stage first
};

// P and M of the simulations.
struct PipelineShape {
    int workers = 2;
    int microbatches = 3;
};
PipelineShape resolveShape(const PlanChoices& choices, const CostFile& file);

// One schedule on `workers` x `microbatches` with the file's costs. Its stages: the chosen
// partition; else the file's for this schedule when it fits this many workers (Looped-BFS: a
// multiple of P stages; GPipe and 1F1B: P stages; RoundPipe: both of its partitions); else
// Looped-BFS's, RoundPipe's automatic or a balanced partition.
SimulationSpec planSimulation(Schedule schedule, int workers, int microbatches,
                              const PlanChoices& choices, const CostFile& file);

// `simulate --predict`: the same costs for P = 2..8 under Looped-BFS and RoundPipe with M = 2P,
// each stage plan from the partitioners (neither the file's nor the chosen ones).
std::vector<SimulationSpec> predictionPlans(const PlanChoices& choices, const CostFile& file);

}  // namespace glueprof::pipeline
