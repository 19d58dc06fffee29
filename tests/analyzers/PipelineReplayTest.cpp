#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzers/PipelineReplay.h"
#include "profiler/core/TraceNames.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

using testing_units::kMs;

// Worker jobs as the pipeline executor records them: a range on a pipeline-worker lane tagged with
// its step, its stage (in the layer tag) and its micro-batch. Jobs of one lane are laid out one
// after another with 1 ms between them, unless `adjacent` (a RoundPipe head's forward, directly
// followed by its backward). The analyzer tells measured jobs from warm-up ones by their step tag.
class ExecutedRun {
  public:
    ExecutedRun() {
        m_builder.addStep(StepInfo{0, 0, 1000 * kMs, true, 0, 3.0, 0});
        m_builder.addStep(StepInfo{1, 1000 * kMs, 100000 * kMs, false, 1, 2.0, 0});
    }
    std::size_t worker(int index) {
        return m_builder.addLane(LaneKind::kPipelineWorker,
                                 "pipeline worker " + std::to_string(index), -1, index);
    }
    // Adds one job per micro-batch 0, 1, 2 of step 1 with these durations (ms), and a warm-up job
    // of 500 ms in step 0 that no median may see.
    void jobs(std::size_t lane, const char* name, int stage, std::vector<TimestampNs> ms) {
        job(lane, name, 0, stage, 0, 500);
        for (std::size_t mb = 0; mb < ms.size(); ++mb)
            job(lane, name, 1, stage, static_cast<std::int32_t>(mb), ms[mb]);
    }
    // RoundPipe's head job per micro-batch: its forward, then at once its backward.
    void headJobs(std::size_t lane, std::vector<TimestampNs> forwardMs,
                  std::vector<TimestampNs> backwardMs) {
        for (std::size_t mb = 0; mb < forwardMs.size(); ++mb) {
            const auto microbatch = static_cast<std::int32_t>(mb);
            job(lane, names::kForward, 1, 0, microbatch, forwardMs[mb]);
            job(lane, names::kBackward, 1, 0, microbatch, backwardMs[mb], true);
        }
    }
    TraceModel build() && { return std::move(m_builder).build(); }

  private:
    void job(std::size_t lane, const char* name, std::int32_t step, int stage,
             std::int32_t microbatch, TimestampNs ms, bool adjacent = false) {
        TimestampNs& cursor = m_cursor[lane];  // ms
        if (!adjacent) cursor += 1;
        m_builder
            .addEvent(lane, EventKind::kRange, Category::kMath, name, cursor * kMs,
                      (cursor + ms) * kMs, step, stage)
            .microbatch = microbatch;
        cursor += ms;
    }

    TraceModelBuilder m_builder;
    std::map<std::size_t, TimestampNs> m_cursor;
};

// Looped-BFS over 3 stages, the head alone on the last (forward partition 2, 2, 0):
//   stage 0 (layers 0-1): forward 10, 12, 14 -> 12, per layer 6; recompute 8 -> 4; backward
//                         20, 22, 30 -> 22 -> 11
//   stage 1 (layers 2-3): forward 16 -> 8; no recompute -> 0; backward 24, 26, 28 -> 26 -> 13
//   stage 2 (head):       forward 5, 7, 9 -> head forward 7; recompute 3 + backward 10, 12, 14
//                         -> 12: head backward 15 (the executor recomputes the head in its
//                         backward)
TEST(PipelineReplayTest, ABoundScheduleSpreadsEachStagesMediansOverItsLayers) {
    ExecutedRun run;
    for (int s = 0; s < 3; ++s) run.worker(s);
    run.jobs(0, names::kForward, 0, {10, 12, 14});
    run.jobs(0, names::kRecompute, 0, {8, 8, 8});
    run.jobs(0, names::kBackward, 0, {20, 22, 30});
    run.jobs(1, names::kForward, 1, {16, 16, 16});
    run.jobs(1, names::kBackward, 1, {24, 26, 28});
    run.jobs(2, names::kForward, 2, {5, 7, 9});
    run.jobs(2, names::kRecompute, 2, {3, 3, 3});
    run.jobs(2, names::kBackward, 2, {10, 12, 14});
    ReplayPlan plan;
    plan.layers = 4;
    plan.forwardPartition = {2, 2, 0};
    const PerLayerCosts c = measureReplayCosts(std::move(run).build(), plan);
    EXPECT_EQ(c.forwardMs, (std::vector<double>{6, 6, 8, 8}));
    EXPECT_EQ(c.recomputeMs, (std::vector<double>{4, 4, 0, 0}));
    EXPECT_EQ(c.backwardMs, (std::vector<double>{11, 11, 13, 13}));
    EXPECT_DOUBLE_EQ(c.headForwardMs, 7.0);
    EXPECT_DOUBLE_EQ(c.headBackwardMs, 15.0);
}

// The head shares the last stage with layer 2 (forward partition 2, 1): stage 0 gives per layer
// forward 12/2 = 6, recompute 8/2 = 4, backward 22/2 = 11; layer 2 is costed at that mean of the
// other stages' layers, and the rest of stage 1 is the head: forward 10 - 6 = 4, backward
// (recompute 5 + backward 20) - (4 + 11) = 10.
TEST(PipelineReplayTest, ALastStageWithLayersGivesTheHeadWhatItsLayersDoNotTake) {
    ExecutedRun run;
    run.worker(0);
    run.worker(1);
    run.jobs(0, names::kForward, 0, {10, 12, 14});
    run.jobs(0, names::kRecompute, 0, {8, 8, 8});
    run.jobs(0, names::kBackward, 0, {20, 22, 30});
    run.jobs(1, names::kForward, 1, {10, 10, 10});
    run.jobs(1, names::kRecompute, 1, {5, 5, 5});
    run.jobs(1, names::kBackward, 1, {20, 20, 20});
    ReplayPlan plan;
    plan.layers = 3;
    plan.forwardPartition = {2, 1};
    const PerLayerCosts c = measureReplayCosts(std::move(run).build(), plan);
    EXPECT_EQ(c.forwardMs, (std::vector<double>{6, 6, 6}));
    EXPECT_EQ(c.recomputeMs, (std::vector<double>{4, 4, 4}));
    EXPECT_EQ(c.backwardMs, (std::vector<double>{11, 11, 11}));
    EXPECT_DOUBLE_EQ(c.headForwardMs, 4.0);
    EXPECT_DOUBLE_EQ(c.headBackwardMs, 10.0);
}

// RoundPipe, 4 layers: forward stages 0 (layers 0-1) and 1 (layers 2-3); backward stage 0 is the
// head, 1 the top two layers, 2 the bottom two (backward partition 0, 2, 2).
//   forward stage 0: 10, 12, 14 -> 12, per layer 6;  forward stage 1: 16 -> 8
//   head (backward stage 0, on its own worker): each forward directly followed by its backward:
//     forward 4, 5, 6 -> head forward 5 (not stage 0's forward); backward 7, 8, 9 -> 8
//   backward stage 1 (layers 2-3): recompute 14, 16, 18 -> 16 -> 8; backward 30 -> 15
//   backward stage 2 (layers 0-1): recompute 12 -> 6; backward 20, 24, 28 -> 24 -> 12
TEST(PipelineReplayTest, RoundPipeTakesTheHeadFromBackwardStageZeroAndTheLayersTopDown) {
    ExecutedRun run;
    for (int w = 0; w < 3; ++w) run.worker(w);
    run.jobs(0, names::kForward, 0, {10, 12, 14});
    run.jobs(0, names::kForward, 1, {16, 16, 16});
    run.headJobs(1, {4, 5, 6}, {7, 8, 9});
    run.jobs(2, names::kRecompute, 1, {14, 16, 18});
    run.jobs(2, names::kBackward, 1, {30, 30, 30});
    run.jobs(2, names::kRecompute, 2, {12, 12, 12});
    run.jobs(2, names::kBackward, 2, {20, 24, 28});
    ReplayPlan plan;
    plan.roundPipe = true;
    plan.layers = 4;
    plan.forwardPartition = {2, 2};
    plan.backwardPartition = {0, 2, 2};
    const PerLayerCosts c = measureReplayCosts(std::move(run).build(), plan);
    EXPECT_EQ(c.forwardMs, (std::vector<double>{6, 6, 8, 8}));
    EXPECT_EQ(c.recomputeMs, (std::vector<double>{6, 6, 8, 8}));
    EXPECT_EQ(c.backwardMs, (std::vector<double>{12, 12, 15, 15}));
    EXPECT_DOUBLE_EQ(c.headForwardMs, 5.0);
    EXPECT_DOUBLE_EQ(c.headBackwardMs, 8.0);
}

std::string refusal(const TraceModel& trace, const ReplayPlan& plan) {
    try {
        measureReplayCosts(trace, plan);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(accepted)";
}

// A plan read from a database whose partitions do not add up to its layers (or hold a negative
// count) is refused before anything is written outside the layers; a stage of the plan without
// jobs in the measured steps (a run that is no executed pipeline, or jobs only in warm-up) names
// the stage.
TEST(PipelineReplayTest, APlanThatDoesNotFitTheRunIsRefusedNamingWhy) {
    ExecutedRun run;
    run.worker(0);
    run.jobs(0, names::kForward, 0, {10, 12, 14});
    run.jobs(0, names::kBackward, 0, {20, 22, 30});
    const TraceModel trace = std::move(run).build();
    ReplayPlan plan;
    plan.layers = 4;
    plan.forwardPartition = {2, 1};
    EXPECT_NE(refusal(trace, plan).find("do not cover its 4 layers"), std::string::npos);
    plan.forwardPartition = {5, -1};
    EXPECT_NE(refusal(trace, plan).find("do not cover its 4 layers"), std::string::npos);
    plan.roundPipe = true;
    plan.forwardPartition = {2, 2};
    plan.backwardPartition = {0, 2};
    EXPECT_NE(refusal(trace, plan).find("do not cover its 4 layers"), std::string::npos);
    plan.roundPipe = false;
    plan.forwardPartition = {2, 2};
    EXPECT_EQ(refusal(trace, plan),
              "the run has no forward jobs of stage 1: is it an executed "
              "pipeline?");
    ExecutedRun warmupOnly;  // every stage-0 job of step 1 gone: only the 500 ms warm-up ones
    warmupOnly.worker(0);
    warmupOnly.jobs(0, names::kForward, 0, {});
    plan.layers = 2;
    plan.forwardPartition = {2};
    EXPECT_NE(refusal(std::move(warmupOnly).build(), plan).find("no forward jobs of stage 0"),
              std::string::npos);
}

}  // namespace
}  // namespace glueprof
