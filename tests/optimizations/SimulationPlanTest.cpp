// What `simulate` simulates (pipeline_schedule/SimulationPlan.h): P and M, and each schedule's
// stages from the user's choice, else the cost file's when it fits, else the partitioners; the
// predictions' plans; a partition as the user writes it (LayerCounts.h). On the RoundPipe
// artifact's 1.7B cost file (28 layers, 8 workers, 16 micro-batches).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "optimizations/pipeline_schedule/CostFile.h"
#include "optimizations/pipeline_schedule/LayerCounts.h"
#include "optimizations/pipeline_schedule/Partitioner.h"
#include "optimizations/pipeline_schedule/SimulationPlan.h"
#include "profiler/core/Error.h"

namespace glueprof::pipeline {
namespace {

const std::vector<int> kPublishedForward{7, 7, 7, 7};
const std::vector<int> kPublishedBackward{0, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2};

CostFile artifact() {
    return loadCostFile(std::string(GLUEPROF_SOURCE_DIR) + "/assets/pipeline/roundpipe-1.7b.json");
}

TEST(SimulationPlanTest, ShapeIsTheChosenOneThenTheCostFilesThenTwoWorkers) {
    const CostFile file = artifact();
    const PipelineShape fromFile = resolveShape({}, file);
    EXPECT_EQ(fromFile.workers, 8);
    EXPECT_EQ(fromFile.microbatches, 16);
    PlanChoices four;
    four.workers = 4;  // the file's M belongs to its P: M = P + 1
    EXPECT_EQ(resolveShape(four, file).workers, 4);
    EXPECT_EQ(resolveShape(four, file).microbatches, 5);
    PlanChoices seven;
    seven.microbatches = 7;
    EXPECT_EQ(resolveShape(seven, file).workers, 8);
    EXPECT_EQ(resolveShape(seven, file).microbatches, 7);
    const PipelineShape bare = resolveShape({}, CostFile{});
    EXPECT_EQ(bare.workers, 2);
    EXPECT_EQ(bare.microbatches, 3);
}

TEST(SimulationPlanTest, ThePlanCarriesTheChoicesAndTheFilesCosts) {
    const CostFile file = artifact();
    PlanChoices choices;
    choices.iterations = 3;
    choices.optimizer = OptimizerMode::kAsynchronous;
    const SimulationSpec spec = planSimulation(Schedule::kRoundPipe, 8, 16, choices, file);
    EXPECT_EQ(spec.schedule, Schedule::kRoundPipe);
    EXPECT_EQ(spec.workers, 8);
    EXPECT_EQ(spec.microbatches, 16);
    EXPECT_EQ(spec.iterations, 3);
    EXPECT_EQ(spec.optimizer, OptimizerMode::kAsynchronous);
    EXPECT_EQ(spec.costs.layers(), 28u);
    EXPECT_DOUBLE_EQ(spec.costs.hopMs, 1.6);
}

TEST(SimulationPlanTest, TheCostFilesPartitionIsTakenOnlyWhenItFitsTheWorkers) {
    CostFile file = artifact();
    file.partitions["looped-bfs"] = {4, 4, 4, 4, 4, 4, 4, 0};  // 8 stages: P = 2, 4 or 8
    file.partitions["gpipe"] = {14, 14};                       // 2 stages: P = 2 only
    EXPECT_EQ(planSimulation(Schedule::kLoopedBfs, 4, 8, {}, file).forwardPartition,
              file.partitions["looped-bfs"]);
    EXPECT_EQ(planSimulation(Schedule::kLoopedBfs, 3, 8, {}, file).forwardPartition,
              loopedBfsPartition(28, 3));
    EXPECT_EQ(planSimulation(Schedule::kGPipe, 2, 4, {}, file).forwardPartition,
              (std::vector<int>{14, 14}));
    EXPECT_EQ(planSimulation(Schedule::kGPipe, 4, 4, {}, file).forwardPartition,
              (std::vector<int>{7, 7, 7, 7}));  // balanced: 28 / 4
    EXPECT_EQ(planSimulation(Schedule::kOneFOneB, 3, 4, {}, file).forwardPartition,
              (std::vector<int>{10, 9, 9}));  // balanced, the first stage takes the remainder
    const SimulationSpec roundPipe = planSimulation(Schedule::kRoundPipe, 8, 16, {}, file);
    EXPECT_EQ(roundPipe.forwardPartition, kPublishedForward);
    EXPECT_EQ(roundPipe.backwardPartition, kPublishedBackward);
}

TEST(SimulationPlanTest, AChosenPartitionWinsOverTheFilesAndThePartitioners) {
    const CostFile file = artifact();
    PlanChoices choices;
    choices.forwardPartition = {14, 14};
    EXPECT_EQ(planSimulation(Schedule::kLoopedBfs, 8, 16, choices, file).forwardPartition,
              choices.forwardPartition);
    SimulationSpec roundPipe = planSimulation(Schedule::kRoundPipe, 8, 16, choices, file);
    EXPECT_EQ(roundPipe.forwardPartition, choices.forwardPartition);
    EXPECT_EQ(roundPipe.backwardPartition, kPublishedBackward);  // not chosen: the file's
    choices.backwardPartition = {0, 28};
    roundPipe = planSimulation(Schedule::kRoundPipe, 8, 16, choices, file);
    EXPECT_EQ(roundPipe.backwardPartition, choices.backwardPartition);
}

TEST(SimulationPlanTest, WithoutPartitionsRoundPipeTakesItsAutomaticOnes) {
    CostFile file = artifact();
    file.partitions.clear();
    const SimulationSpec spec = planSimulation(Schedule::kRoundPipe, 8, 16, {}, file);
    EXPECT_EQ(spec.forwardPartition, kPublishedForward);  // the paper's, from the partitioner
    EXPECT_EQ(spec.backwardPartition, kPublishedBackward);
    EXPECT_EQ(planSimulation(Schedule::kLoopedBfs, 8, 16, {}, file).forwardPartition,
              loopedBfsPartition(28, 8));
}

TEST(SimulationPlanTest, PredictionsAreBothSchedulesForTwoToEightWorkersWithTwiceTheMicrobatches) {
    CostFile file = artifact();
    file.partitions["looped-bfs"] = {4, 4, 4, 4, 4, 4, 4, 0};
    PlanChoices choices;
    choices.forwardPartition = {14, 14};  // neither the chosen nor the file's partitions
    choices.iterations = 2;
    const std::vector<SimulationSpec> plans = predictionPlans(choices, file);
    ASSERT_EQ(plans.size(), 14u);
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const int p = 2 + static_cast<int>(i / 2);
        EXPECT_EQ(plans[i].workers, p);
        EXPECT_EQ(plans[i].microbatches, 2 * p);
        EXPECT_EQ(plans[i].iterations, 2);
        EXPECT_EQ(plans[i].schedule, i % 2 == 0 ? Schedule::kLoopedBfs : Schedule::kRoundPipe);
    }
    EXPECT_EQ(plans[6].forwardPartition, loopedBfsPartition(28, 5));
    EXPECT_EQ(plans[12].forwardPartition, loopedBfsPartition(28, 8));
    EXPECT_EQ(plans[13].forwardPartition, kPublishedForward);
}

TEST(LayerCountsTest, CommaSeparatedCountsParseAndAnythingElseIsAUsageErrorNamingTheOption) {
    EXPECT_EQ(parseLayerCounts("5,1,1,0", "--partition"), (std::vector<int>{5, 1, 1, 0}));
    for (const std::string bad : {"5,x", "5,,1", "-1", "2.5", ","}) {
        try {
            parseLayerCounts(bad, "--backward-partition");
            ADD_FAILURE() << bad << " parsed";
        } catch (const GlueprofError& e) {
            EXPECT_EQ(e.code(), ExitCode::kUsage);
            EXPECT_EQ(std::string(e.what()).rfind("--backward-partition '" + bad + "': '", 0), 0u)
                << e.what();
        }
    }
}

}  // namespace
}  // namespace glueprof::pipeline
