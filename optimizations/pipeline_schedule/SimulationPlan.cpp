#include "optimizations/pipeline_schedule/SimulationPlan.h"

#include <string>

#include "optimizations/pipeline_schedule/Partitioner.h"

namespace glueprof::pipeline {

namespace {

// The file's partition for a bound schedule, when it fits `workers`.
bool filePartitionFits(Schedule schedule, const std::vector<int>& partition, int workers) {
    const auto stages = static_cast<std::size_t>(workers);
    return schedule == Schedule::kLoopedBfs ? partition.size() % stages == 0
                                            : partition.size() == stages;
}

void planRoundPipe(const PlanChoices& choices, const CostFile& file, SimulationSpec& spec) {
    const bool given = file.partitions.count("roundpipe-forward") != 0;
    const RoundPipePartition automatic = roundPipePartition(spec.costs);
    spec.forwardPartition = !choices.forwardPartition.empty() ? choices.forwardPartition
                            : given ? file.partitions.at("roundpipe-forward")
                                    : automatic.forward;
    spec.backwardPartition = !choices.backwardPartition.empty() ? choices.backwardPartition
                             : given ? file.partitions.at("roundpipe-backward")
                                     : automatic.backward;
}

std::vector<int> boundPartition(Schedule schedule, int workers, const PlanChoices& choices,
                                const CostFile& file, int layers) {
    if (!choices.forwardPartition.empty()) return choices.forwardPartition;
    const auto fromFile = file.partitions.find(toString(schedule));
    if (fromFile != file.partitions.end() &&
        filePartitionFits(schedule, fromFile->second, workers)) {
        return fromFile->second;
    }
    if (schedule == Schedule::kLoopedBfs) return loopedBfsPartition(layers, workers);
    return balancedPartition(layers, workers);
}

}  // namespace

PipelineShape resolveShape(const PlanChoices& choices, const CostFile& file) {
    PipelineShape shape;
    shape.workers = choices.workers > 0 ? choices.workers : (file.workers > 0 ? file.workers : 2);
    shape.microbatches = choices.microbatches > 0                        ? choices.microbatches
                         : file.microbatches > 0 && choices.workers == 0 ? file.microbatches
                                                                         : shape.workers + 1;
    return shape;
}

SimulationSpec planSimulation(Schedule schedule, int workers, int microbatches,
                              const PlanChoices& choices, const CostFile& file) {
    SimulationSpec spec;
    spec.schedule = schedule;
    spec.workers = workers;
    spec.microbatches = microbatches;
    spec.iterations = choices.iterations;
    spec.optimizer = choices.optimizer;
    spec.costs = file.costs;
    if (schedule == Schedule::kRoundPipe) {
        planRoundPipe(choices, file, spec);
    } else {
        spec.forwardPartition =
            boundPartition(schedule, workers, choices, file, static_cast<int>(spec.costs.layers()));
    }
    return spec;
}

std::vector<SimulationSpec> predictionPlans(const PlanChoices& choices, const CostFile& file) {
    PlanChoices plain = choices;
    plain.forwardPartition.clear();
    plain.backwardPartition.clear();
    CostFile noPartitions = file;
    noPartitions.partitions.clear();
    std::vector<SimulationSpec> specs;
    for (int p = 2; p <= 8; ++p) {
        for (Schedule s : {Schedule::kLoopedBfs, Schedule::kRoundPipe}) {
            specs.push_back(planSimulation(s, p, 2 * p, plain, noPartitions));
        }
    }
    return specs;
}

}  // namespace glueprof::pipeline
