#include <gtest/gtest.h>

#include "analyzers/StepBreakdown.h"
#include "profiler/core/TraceNames.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

using testing_units::kMs;
using testing_units::kUs;

// Step 0 (warm-up): ignored. Step 1: wall 0..100 ms, forward 0..30, backward 30..80, optimizer
// 80..95. Step 2: wall 100..180, two forwards 100..120 and 125..135 (30 in all), backward 135..170,
// optimizer 170..175. Medians over steps 1 and 2: wall (100+80)/2 = 90, forward 30,
// backward (50+35)/2 = 42.5, optimizer (15+5)/2 = 10.
TraceModel twoMeasuredSteps() {
    TraceModelBuilder b;
    std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{0, -50 * kMs, -10 * kMs, true, 0, 3.0, 0});
    b.addStep(StepInfo{1, 0, 100 * kMs, false, 1, 2.0, 0});
    b.addStep(StepInfo{2, 100 * kMs, 180 * kMs, false, 1, 1.5, 0});
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kForward, -50 * kMs, -20 * kMs, 0);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kForward, 0, 30 * kMs, 1);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kBackward, 30 * kMs, 80 * kMs, 1);
    b.addEvent(lane, EventKind::kRange, Category::kOptimizer, names::kOptimizer, 80 * kMs, 95 * kMs,
               1);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kForward, 100 * kMs, 120 * kMs, 2);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kForward, 125 * kMs, 135 * kMs, 2);
    b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kBackward, 135 * kMs, 170 * kMs,
               2);
    b.addEvent(lane, EventKind::kRange, Category::kOptimizer, names::kOptimizer, 170 * kMs,
               175 * kMs, 2);
    return std::move(b).build();
}

TEST(StepBreakdownTest, SumsPhaseRangesPerStepAndExcludesWarmup) {
    StepBreakdownResult r = analyzeStepBreakdown(twoMeasuredSteps());
    ASSERT_EQ(r.measured.size(), 2u);
    ASSERT_EQ(r.warmup.size(), 1u);
    EXPECT_DOUBLE_EQ(r.measured[0].wallMs, 100.0);
    EXPECT_DOUBLE_EQ(r.measured[0].forwardMs, 30.0);
    EXPECT_DOUBLE_EQ(r.measured[0].backwardMs, 50.0);
    EXPECT_DOUBLE_EQ(r.measured[0].optimizerMs, 15.0);
    EXPECT_DOUBLE_EQ(r.measured[1].forwardMs, 30.0);  // two micro-batch forwards
    EXPECT_DOUBLE_EQ(r.measured[1].backwardMs, 35.0);
}

TEST(StepBreakdownTest, MediansAreOverMeasuredStepsOnly) {
    StepBreakdownResult r = analyzeStepBreakdown(twoMeasuredSteps());
    EXPECT_DOUBLE_EQ(r.medianWallMs, 90.0);
    EXPECT_DOUBLE_EQ(r.medianForwardMs, 30.0);
    EXPECT_DOUBLE_EQ(r.medianBackwardMs, 42.5);
    EXPECT_DOUBLE_EQ(r.medianOptimizerMs, 10.0);
}

// A program glueprof profiled (or an imported torch.profiler trace) has no trainer phases; its
// optimizer is timed by torch's Optimizer.step#CLASS.step ranges (zero_grad is not the step). A
// trainer trace keeps its own optimizer range even where torch's ranges are inside it.
TEST(StepBreakdownTest, WithoutTheTrainersOptimizerRangeTorchsOptimizerStepRangesTimeIt) {
    TraceModelBuilder b;
    std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{1, 0, 100 * kMs, false, 1, 2.0, 0});
    b.addStep(StepInfo{2, 100 * kMs, 200 * kMs, false, 1, 1.5, 0});
    b.addEvent(lane, EventKind::kRange, Category::kOptimizer, "Optimizer.step#AdamW.step", 80 * kMs,
               92 * kMs, 1);
    b.addEvent(lane, EventKind::kRange, Category::kOptimizer, "Optimizer.zero_grad#AdamW.zero_grad",
               92 * kMs, 93 * kMs, 1);
    b.addEvent(lane, EventKind::kRange, Category::kOptimizer, "Optimizer.step#AdamW.step",
               180 * kMs, 188 * kMs, 2);
    const StepBreakdownResult r = analyzeStepBreakdown(std::move(b).build());
    ASSERT_EQ(r.measured.size(), 2u);
    EXPECT_DOUBLE_EQ(r.measured[0].optimizerMs, 12.0);
    EXPECT_DOUBLE_EQ(r.measured[1].optimizerMs, 8.0);
    EXPECT_DOUBLE_EQ(r.measured[0].forwardMs, 0.0);

    TraceModelBuilder trainer;
    lane = trainer.addLane(LaneKind::kHostThread, "main");
    trainer.addStep(StepInfo{1, 0, 100 * kMs, false, 1, 2.0, 0});
    trainer.addEvent(lane, EventKind::kRange, Category::kOptimizer, names::kOptimizer, 80 * kMs,
                     95 * kMs, 1);
    trainer.addEvent(lane, EventKind::kRange, Category::kOptimizer, "Optimizer.step#AdamW.step",
                     81 * kMs, 90 * kMs, 1);
    EXPECT_DOUBLE_EQ(analyzeStepBreakdown(std::move(trainer).build()).measured[0].optimizerMs,
                     15.0);
}

TEST(StepBreakdownTest, TraceWithoutStepsGivesEmptyResult) {
    TraceModelBuilder b;
    b.addLane(LaneKind::kHostThread, "main");
    StepBreakdownResult r = analyzeStepBreakdown(std::move(b).build());
    EXPECT_TRUE(r.measured.empty());
    EXPECT_DOUBLE_EQ(r.medianWallMs, 0.0);
}

// A CUDA step (times in microseconds of a made-up run): the host queues forward in 0..300 (launches
// at 10 and 100 on the main thread) and waits in backward 300..900 while autograd's own thread
// launches at 400; the device runs forward's kernels 50..400 and 400..700 and backward's 700..1200.
// Host: forward 300, backward 600, step 1000 (the steps row). Device: forward 50..700 = 650,
// backward 700..1200 = 500 (launched from the other thread during backward), step to completion
// 0..1200 = 1200; the optimizer launched nothing and keeps its host 100.
TEST(StepBreakdownTest, OnACudaRunPhasesAreTimedByTheDeviceWorkTheyLaunched) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    const std::size_t autograd = b.addLane(LaneKind::kHostThread, "pt_autograd_0");
    const std::size_t stream = b.addLane(LaneKind::kCudaStream, "GPU 0 stream 7", 0, 7);
    b.addStep(StepInfo{1, 0, 1000 * kUs, false, 1, 2.0, 0});
    b.addEvent(host, EventKind::kRange, Category::kPhase, names::kForward, 0, 300 * kUs, 1);
    b.addEvent(host, EventKind::kRange, Category::kPhase, names::kBackward, 300 * kUs, 900 * kUs,
               1);
    b.addEvent(host, EventKind::kRange, Category::kOptimizer, names::kOptimizer, 900 * kUs,
               1000 * kUs, 1);
    auto launch = [&](std::size_t lane, TimestampNs at, std::int64_t correlation) {
        b.addEvent(lane, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", at * kUs,
                   (at + 5) * kUs, 1)
            .correlation = correlation;
    };
    auto kernel = [&](TimestampNs start, TimestampNs end, std::int64_t correlation) {
        b.addEvent(stream, EventKind::kKernel, Category::kMath, "k", start * kUs, end * kUs, 1)
            .correlation = correlation;
    };
    launch(host, 10, 1);
    launch(host, 100, 2);
    launch(autograd, 400, 3);
    kernel(50, 400, 1);
    kernel(400, 700, 2);
    kernel(700, 1200, 3);
    const StepBreakdownResult r = analyzeStepBreakdown(std::move(b).build());
    ASSERT_EQ(r.measured.size(), 1u);
    EXPECT_TRUE(r.hasDeviceTimes);
    const StepTimes& t = r.measured[0];
    EXPECT_DOUBLE_EQ(t.hostValue(TimingMetric::kForward), 0.3);
    EXPECT_DOUBLE_EQ(t.value(TimingMetric::kForward, true), 0.65);
    EXPECT_DOUBLE_EQ(t.value(TimingMetric::kBackward, true), 0.5);
    EXPECT_DOUBLE_EQ(t.value(TimingMetric::kStep, true), 1.2);
    EXPECT_FALSE(t.deviceFound[static_cast<std::size_t>(TimingMetric::kOptimizer)]);
    EXPECT_TRUE(r.deviceTimed(TimingMetric::kBackward));
    EXPECT_FALSE(r.deviceTimed(TimingMetric::kOptimizer));  // host figures for it, in every step
    EXPECT_DOUBLE_EQ(r.median(TimingMetric::kForward), 0.65);
    EXPECT_DOUBLE_EQ(r.median(TimingMetric::kOptimizer), 0.1);
    EXPECT_DOUBLE_EQ(r.medianHost(TimingMetric::kForward), 0.3);
}

// A GPU queue running behind the host: steps 1..3 each queue their work in 10 us of host time,
// and the device runs it back to back, 40 us per step, from 5 us on. Timed to completion from each
// step's host start, the steps would overlap (45 + 75 + 105 = 225 us for a 120 us device span); as
// a partition of the device's time they are 45, 40 and 40 us, which sum to the span from the first
// step's start to the last step's completion (125 us).
TEST(StepBreakdownTest, StepsTimedOnTheDevicePartitionItsTimeWhenItRunsBehindTheHost) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    const std::size_t stream = b.addLane(LaneKind::kCudaStream, "GPU 0 stream 7", 0, 7);
    for (std::int32_t step = 1; step <= 3; ++step) {
        const TimestampNs hostStart = (step - 1) * 10;
        b.addStep(StepInfo{step, hostStart * kUs, (hostStart + 10) * kUs, false, 1, 1.0, 0});
        b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel",
                   (hostStart + 1) * kUs, (hostStart + 2) * kUs, step)
            .correlation = step;
        const TimestampNs deviceStart = 5 + (step - 1) * 40;
        b.addEvent(stream, EventKind::kKernel, Category::kMath, "k", deviceStart * kUs,
                   (deviceStart + 40) * kUs, step)
            .correlation = step;
    }
    const StepBreakdownResult r = analyzeStepBreakdown(std::move(b).build());
    ASSERT_EQ(r.measured.size(), 3u);
    EXPECT_DOUBLE_EQ(r.measured[0].value(TimingMetric::kStep, true), 0.045);
    EXPECT_DOUBLE_EQ(r.measured[1].value(TimingMetric::kStep, true), 0.040);
    EXPECT_DOUBLE_EQ(r.measured[2].value(TimingMetric::kStep, true), 0.040);
    EXPECT_DOUBLE_EQ(r.measured[1].hostValue(TimingMetric::kStep), 0.010);
}

TEST(StepBreakdownTest, AHostOnlyRunHasNoDeviceTimes) {
    const StepBreakdownResult r = analyzeStepBreakdown(twoMeasuredSteps());
    EXPECT_FALSE(r.hasDeviceTimes);
    EXPECT_DOUBLE_EQ(r.median(TimingMetric::kBackward), r.medianHost(TimingMetric::kBackward));
}

}  // namespace
}  // namespace glueprof
