#include <gtest/gtest.h>

#include <vector>

#include "analyzers/TargetMetrics.h"
#include "profiler/core/TraceNames.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

using testing_units::kMs;

// Steps as an A/B arm records them: step 0 warm-up (block 0), steps 1 and 2 in block 1, step 3 in
// block 2; each 100 ms long from step * 100 ms.
TraceModelBuilder fourSteps() {
    TraceModelBuilder b;
    b.addStep(StepInfo{0, 0, 100 * kMs, true, 0, 3.0, 0});
    b.addStep(StepInfo{1, 100 * kMs, 200 * kMs, false, 1, 2.0, 0});
    b.addStep(StepInfo{2, 200 * kMs, 300 * kMs, false, 1, 1.9, 0});
    b.addStep(StepInfo{3, 300 * kMs, 400 * kMs, false, 2, 1.8, 0});
    return b;
}

void expectSamples(const std::vector<TargetSample>& samples,
                   const std::vector<TargetSample>& expected) {
    ASSERT_EQ(samples.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(samples[i].step, expected[i].step) << i;
        EXPECT_EQ(samples[i].block, expected[i].block) << i;
        EXPECT_DOUBLE_EQ(samples[i].ms, expected[i].ms) << "step " << expected[i].step;
    }
}

// build_packed_mask ranges, summed per step over every lane:
//   step 0 (warm-up): 5 ms                      -> no sample
//   step 1: 1.5 + 0.5 ms on main, 1 ms on other -> 3 ms
//   step 2: none                                -> 0 ms (every measured step has a value)
//   step 3: 4 ms                                -> 4 ms
// An untagged range (100 ms) and an op of the same name (7 ms) count nowhere.
TEST(TargetMetricsTest, MaskBuildSumsItsRangesPerMeasuredStepAndGivesZeroWhereThereAreNone) {
    TraceModelBuilder b = fourSteps();
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    const std::size_t other = b.addLane(LaneKind::kHostThread, "other");
    auto mask = [&](std::size_t lane, EventKind kind, TimestampNs startUs, TimestampNs endUs,
                    std::int32_t step) {
        b.addEvent(lane, kind, Category::kGlue, names::kMaskBuild, startUs * 1000, endUs * 1000,
                   step);
    };
    mask(host, EventKind::kRange, 10000, 15000, 0);
    mask(host, EventKind::kRange, 110000, 111500, 1);
    mask(host, EventKind::kRange, 120000, 120500, 1);
    mask(other, EventKind::kRange, 110000, 111000, 1);
    mask(host, EventKind::kOp, 130000, 137000, 1);
    mask(host, EventKind::kRange, 310000, 314000, 3);
    mask(other, EventKind::kRange, 200000, 300000, kNoTag);
    expectSamples(targetPerStep(std::move(b).build(), TargetMetric::kMaskBuild),
                  {{1, 1, 3.0}, {2, 1, 0.0}, {3, 2, 4.0}});
}

// moe_routing ranges: 2 ms in step 1, 1 + 1 ms in step 3; a mask build (9 ms) is not routing.
TEST(TargetMetricsTest, RoutingSumsTheMoeRoutingRanges) {
    TraceModelBuilder b = fourSteps();
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    b.addEvent(host, EventKind::kRange, Category::kGlue, names::kMoeRouting, 110 * kMs, 112 * kMs,
               1);
    b.addEvent(host, EventKind::kRange, Category::kGlue, names::kMoeRouting, 310 * kMs, 311 * kMs,
               3);
    b.addEvent(host, EventKind::kRange, Category::kGlue, names::kMoeRouting, 320 * kMs, 321 * kMs,
               3);
    b.addEvent(host, EventKind::kRange, Category::kGlue, names::kMaskBuild, 120 * kMs, 129 * kMs,
               1);
    expectSamples(targetPerStep(std::move(b).build(), TargetMetric::kRouting),
                  {{1, 1, 2.0}, {2, 1, 0.0}, {3, 2, 2.0}});
}

// wait_reload waits (the compute waiting for an offloaded input): 3 + 2 ms in step 2. A range of
// the same name (6 ms, step 1) is no wait.
TEST(TargetMetricsTest, ReloadWaitSumsTheWaitsNotRangesOfTheName) {
    TraceModelBuilder b = fourSteps();
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    b.addEvent(host, EventKind::kRange, Category::kSync, names::kWaitReload, 110 * kMs, 116 * kMs,
               1);
    b.addEvent(host, EventKind::kWait, Category::kSync, names::kWaitReload, 210 * kMs, 213 * kMs,
               2);
    b.addEvent(host, EventKind::kWait, Category::kSync, names::kWaitReload, 250 * kMs, 252 * kMs,
               2);
    expectSamples(targetPerStep(std::move(b).build(), TargetMetric::kReloadWait),
                  {{1, 1, 0.0}, {2, 1, 5.0}, {3, 2, 0.0}});
}

// ab --exec --target RANGE: the ranges of that name per step (a program's own range), and the
// toggles' range names map to the toggles' own metrics.
TEST(TargetMetricsTest, AUserRangeSumsTheRangesOfItsNameAndKnownNamesAreTheTogglesMetrics) {
    TraceModelBuilder b = fourSteps();
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    b.addEvent(host, EventKind::kRange, Category::kPhase, "rotary_tables", 110 * kMs, 112 * kMs, 1);
    b.addEvent(host, EventKind::kRange, Category::kPhase, "rotary_tables", 113 * kMs, 114 * kMs, 1);
    b.addEvent(host, EventKind::kOp, Category::kMath, "rotary_tables", 210 * kMs, 219 * kMs, 2);
    expectSamples(targetPerStep(std::move(b).build(), TargetMetric::kUserRange, "rotary_tables"),
                  {{1, 1, 3.0}, {2, 1, 0.0}, {3, 2, 0.0}});
    EXPECT_EQ(targetMetricOfRange("build_packed_mask"), TargetMetric::kMaskBuild);
    EXPECT_EQ(targetMetricOfRange("moe_routing"), TargetMetric::kRouting);
    EXPECT_EQ(targetMetricOfRange("rotary_tables"), TargetMetric::kUserRange);
    EXPECT_EQ(targetMetricOfRange(""), TargetMetric::kNone);
    EXPECT_EQ(parseTargetMetric("target_range_ms"), TargetMetric::kUserRange);
}

// The makespan of a pipeline step: first start to last end of its forward, recompute and backward
// jobs on the worker lanes (executed or simulated), gaps included.
//   step 1, executed workers: forward 100..110 (w0), 105..115 (w1); backward 115..130 (w1),
//           130..142 (w0)                                   -> 142 - 100 = 42 ms
//   step 2, a simulated worker: recompute 200..210, backward 210..225 -> 25 ms
//   step 3: no worker jobs                                  -> 0
// Not counted: the host's forward range (90..160, step 1) and a worker's `upload` (145..150).
TEST(TargetMetricsTest, MakespanSpansTheStepsWorkerJobsFirstStartToLastEnd) {
    TraceModelBuilder b = fourSteps();
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    const std::size_t w0 = b.addLane(LaneKind::kPipelineWorker, "pipeline worker 0", -1, 0);
    const std::size_t w1 = b.addLane(LaneKind::kPipelineWorker, "pipeline worker 1", -1, 1);
    const std::size_t simulated = b.addLane(LaneKind::kSimulatedWorker, "worker 0", 0, 0);
    auto job = [&](std::size_t lane, const char* name, TimestampNs start, TimestampNs end,
                   std::int32_t step) {
        b.addEvent(lane, EventKind::kRange, Category::kMath, name, start * kMs, end * kMs, step);
    };
    job(host, names::kForward, 90, 160, 1);
    job(w0, names::kForward, 100, 110, 1);
    job(w1, names::kForward, 105, 115, 1);
    job(w1, names::kBackward, 115, 130, 1);
    job(w0, names::kBackward, 130, 142, 1);
    job(w0, "upload", 145, 150, 1);
    job(simulated, names::kRecompute, 200, 210, 2);
    job(simulated, names::kBackward, 210, 225, 2);
    expectSamples(targetPerStep(std::move(b).build(), TargetMetric::kMakespan),
                  {{1, 1, 42.0}, {2, 1, 25.0}, {3, 2, 0.0}});
}

// Exposed communication is the glue breakdown's comm part (a CPU run): step 1 runs math 100..140
// on main while a comm thread all-reduces 130..170, and main waits for an all-reduce 180..190.
// Math covers 130..140 of the all-reduce, so comm is 140..170 plus the wait: 30 + 10 = 40 ms.
TEST(TargetMetricsTest, ExposedCommIsTheCommunicationNothingElseCovered) {
    TraceModelBuilder b = fourSteps();
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    const std::size_t comm = b.addLane(LaneKind::kHostThread, "comm");
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", 100 * kMs, 140 * kMs, 1);
    b.addEvent(comm, EventKind::kRange, Category::kComm, "all_reduce", 130 * kMs, 170 * kMs, 1);
    b.addEvent(host, EventKind::kWait, Category::kComm, "wait_all_reduce", 180 * kMs, 190 * kMs, 1);
    expectSamples(targetPerStep(std::move(b).build(), TargetMetric::kExposedComm),
                  {{1, 1, 40.0}, {2, 1, 0.0}, {3, 2, 0.0}});
}

TEST(TargetMetricsTest, AToggleWithoutATargetMetricHasNoSamples) {
    EXPECT_TRUE(targetPerStep(fourSteps().build(), TargetMetric::kNone).empty());
}

}  // namespace
}  // namespace glueprof
