#include <gtest/gtest.h>

#include "analyzers/RankAnalysis.h"
#include "profiler/core/TraceNames.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

using testing_units::kMs;

// One rank: a warm-up step 0 and measured steps 1 (from 0 ms) and 2 (from 100 ms) of the given
// lengths; an op (compute) over [10, 40) ms of each measured step; collectives 1 and 2 in step 1
// and 3 in step 2, 20 ms each, starting at 30, 60 and 130 ms plus `lateNs`.
TraceModel rank(double step1Ms, double step2Ms, TimestampNs lateNs) {
    TraceModelBuilder b;
    const std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{0, -50 * kMs, -10 * kMs, true, 0, 1.0, 0});
    b.addStep(StepInfo{1, 0, static_cast<TimestampNs>(step1Ms * kMs), false, 1, 1.0, 0});
    b.addStep(StepInfo{2, 100 * kMs, 100 * kMs + static_cast<TimestampNs>(step2Ms * kMs), false, 1,
                       1.0, 0});
    b.addEvent(lane, EventKind::kOp, Category::kMath, "aten::mm", 10 * kMs, 40 * kMs, 1);
    b.addEvent(lane, EventKind::kOp, Category::kMath, "aten::mm", 110 * kMs, 140 * kMs, 2);
    std::int64_t sequence = 0;
    for (const auto& [step, start] :
         std::vector<std::pair<int, TimestampNs>>{{1, 30 * kMs}, {1, 60 * kMs}, {2, 130 * kMs}}) {
        Event& e = b.addEvent(lane, EventKind::kRange, Category::kComm, names::kAllReduce,
                              start + lateNs, start + lateNs + 20 * kMs, step);
        e.correlation = ++sequence;
    }
    // A warm-up collective every rank issued too: not in any measured step.
    Event& w = b.addEvent(lane, EventKind::kRange, Category::kComm, names::kAllReduce, -40 * kMs,
                          -30 * kMs, 0);
    w.correlation = 100;
    return std::move(b).build();
}

TEST(RankAnalysis, SlowestRankSpreadStragglerAndHtaOverlap) {
    // Rank 1 starts every collective 4 ms after rank 0 and is slower in step 1; rank 2 in step 2.
    const TraceModel r0 = rank(80, 70, 0);
    const TraceModel r1 = rank(90, 72, 4 * kMs);
    const TraceModel r2 = rank(85, 76, 1 * kMs);
    const RankAnalysisResult result = analyzeRanks({&r0, &r1, &r2});
    ASSERT_EQ(result.steps.size(), 2u);  // measured steps only
    EXPECT_EQ(result.steps[0].slowestRank, 1);
    EXPECT_DOUBLE_EQ(result.steps[0].spreadMs, 90.0 - 85.0);
    EXPECT_EQ(result.steps[1].slowestRank, 2);
    EXPECT_DOUBLE_EQ(result.steps[1].spreadMs, 76.0 - 72.0);
    // Each collective: last start - first start = 4 ms; step 1 has two of them, step 2 one.
    EXPECT_EQ(result.steps[0].collectives, 2);
    EXPECT_DOUBLE_EQ(result.steps[0].stragglerMs, 4.0);
    EXPECT_DOUBLE_EQ(result.steps[0].stragglerTotalMs, 8.0);
    EXPECT_DOUBLE_EQ(result.steps[1].stragglerMs, 4.0);
    EXPECT_EQ(result.slowestCount, (std::vector<int>{0, 1, 1}));
    // Rank 0: comm [30,50) [60,80) [130,150) in measured steps = 60 ms; compute covers [30,40) and
    // [130,140) = 20 ms of it: 1/3.
    ASSERT_EQ(result.overlapRatio.size(), 3u);
    EXPECT_DOUBLE_EQ(result.overlapRatio[0], 20.0 / 60.0);
    // Rank 1 starts 4 ms later: [34,40) and [134,140) covered = 12 of 60 ms.
    EXPECT_DOUBLE_EQ(result.overlapRatio[1], 12.0 / 60.0);
}

TEST(RankAnalysis, OneRankOrCollectivesMissingOnARankGiveNoStragglerTime) {
    const TraceModel r0 = rank(80, 70, 0);
    EXPECT_TRUE(analyzeRanks({&r0}).steps.empty());
    TraceModelBuilder b;
    b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{1, 0, 90 * kMs, false, 1, 1.0, 0});
    const TraceModel noComm = std::move(b).build();
    const RankAnalysisResult result = analyzeRanks({&r0, &noComm});
    ASSERT_EQ(result.steps.size(), 1u);  // step 2 is not on both ranks
    EXPECT_EQ(result.steps[0].collectives, 0);
    EXPECT_DOUBLE_EQ(result.steps[0].stragglerMs, 0.0);
    EXPECT_DOUBLE_EQ(result.overlapRatio[1], -1.0);  // no communication to overlap
}

TEST(RankAnalysis, ACollectivesInstancesLineUpAcrossRanksByItsSequenceNumber) {
    const TraceModel r0 = rank(80, 70, 0);
    const TraceModel r1 = rank(90, 72, 4 * kMs);
    const std::vector<CollectiveInstances> step1 = collectivesOfStep({&r0, &r1}, 1);
    ASSERT_EQ(step1.size(), 2u);
    EXPECT_EQ(step1[0].sequence, 1);
    EXPECT_EQ(step1[1].sequence, 2);
    for (const CollectiveInstances& c : step1) {
        ASSERT_EQ(c.perRank.size(), 2u);
        EXPECT_TRUE(c.onEveryRank());
        EXPECT_EQ(c.perRank[1]->startNs - c.perRank[0]->startNs, 4 * kMs);
        EXPECT_EQ(c.stragglerNs(), 4 * kMs);
    }
    const std::vector<CollectiveInstances> step2 = collectivesOfStep({&r0, &r1}, 2);
    ASSERT_EQ(step2.size(), 1u);
    EXPECT_EQ(step2[0].sequence, 3);
    // A rank without the collective: its instance is missing, the others still line up.
    TraceModelBuilder b;
    b.addLane(LaneKind::kHostThread, "main");
    const TraceModel none = std::move(b).build();
    const std::vector<CollectiveInstances> partial = collectivesOfStep({&r0, &none}, 1);
    ASSERT_EQ(partial.size(), 2u);
    EXPECT_FALSE(partial[0].onEveryRank());
    EXPECT_EQ(partial[0].perRank[1], nullptr);
    EXPECT_EQ(partial[0].stragglerNs(), 0);
}

TEST(RankAnalysis, OnAGpuTheOverlapIsHtasOverCommunicationAndComputeKernels) {
    // An NCCL kernel [0, 20) ms half under a GEMM [10, 30); the host's comm range [0, 50) under no
    // op would give 0 on the host: with communication kernels the kernels decide, as in HTA.
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    const std::size_t comm = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    const std::size_t compute = b.addLane(LaneKind::kCudaStream, "stream 8", 0, 8);
    b.addStep(StepInfo{1, 0, 60 * kMs, false, 1, 1.0, 0});
    b.addEvent(host, EventKind::kRange, Category::kComm, "record_param_comms", 0, 50 * kMs, 1)
        .correlation = 1;
    b.addEvent(comm, EventKind::kKernel, Category::kNone, "ncclDevKernel_AllReduce_Sum_f32", 0,
               20 * kMs, 1);
    b.addEvent(compute, EventKind::kKernel, Category::kNone, "sm90_gemm", 10 * kMs, 30 * kMs, 1);
    const TraceModel r0 = std::move(b).build();
    const TraceModel r1 = rank(80, 70, 0);
    const RankAnalysisResult result = analyzeRanks({&r0, &r1});
    ASSERT_EQ(result.overlapRatio.size(), 2u);
    EXPECT_DOUBLE_EQ(result.overlapRatio[0], 0.5);
}

}  // namespace
}  // namespace glueprof
