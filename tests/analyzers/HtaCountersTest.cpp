#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analyzers/AnnotationBreakdown.h"
#include "analyzers/DurationsByName.h"
#include "analyzers/LaunchStats.h"
#include "analyzers/QueueLength.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

using testing_units::kUs;

// Three launches at 0, 1 and 2 us whose kernels run back to back from 10 us on stream 7 for 10 us
// each: the queue goes 1, 2, 3 (enqueued) and then 2, 1, 0 (started at 10, 20, 30 us).
TraceModel threeQueuedKernels() {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", 0, 1);
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    for (int k = 0; k < 3; ++k) {
        b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", k * kUs,
                   k * kUs + kUs / 2)
            .correlation = k + 1;
        b.addEvent(s7, EventKind::kKernel, Category::kMath, "gemm", (10 + 10 * k) * kUs,
                   (20 + 10 * k) * kUs)
            .correlation = k + 1;
    }
    // A call HTA does not count as an enqueue, with a kernel of its own: not in the series.
    b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaGraphLaunch", 3 * kUs, 4 * kUs)
        .correlation = 9;
    b.addEvent(s7, EventKind::kKernel, Category::kMath, "graph_kernel", 40 * kUs, 41 * kUs)
        .correlation = 9;
    return std::move(b).build();
}

TEST(QueueLengthTest, HtasSeriesSummaryAndTheTimeAtAFullQueue) {
    const QueueLengthResult r = analyzeQueueLength(threeQueuedKernels(), /*capacity=*/3);
    ASSERT_EQ(r.streams.size(), 1u);
    const StreamQueueLength& s = r.streams[0];
    EXPECT_EQ(s.lane, "stream 7");
    EXPECT_EQ(s.stream, 7);
    // Samples 1, 2, 3, 2, 1, 0.
    EXPECT_EQ(s.samples, 6);
    EXPECT_DOUBLE_EQ(s.mean, 1.5);
    EXPECT_NEAR(s.stddev, std::sqrt(5.5 / 5.0), 1e-12);
    EXPECT_EQ(s.min, 0);
    EXPECT_EQ(s.max, 3);
    EXPECT_DOUBLE_EQ(s.p25, 1.0);
    EXPECT_DOUBLE_EQ(s.p50, 1.5);
    EXPECT_DOUBLE_EQ(s.p75, 2.0);
    // 1 for 1 us, 2 for 1, 3 for 8, 2 for 10, 1 for 10: 57 over 30 us.
    EXPECT_DOUBLE_EQ(s.timeWeightedMean, 57.0 / 30.0);
    EXPECT_EQ(s.atFullQueueNs, 8 * kUs);  // at 3 from 2 us to 10 us
    // The trace's duration: first start (0) to last start (40 us, the graph's kernel).
    EXPECT_EQ(r.traceDurationNs, 40 * kUs);
    EXPECT_DOUBLE_EQ(s.atFullQueueShare, 8.0 / 40.0);
}

TEST(QueueLengthTest, AtCudasCapacityNothingIsBlockedAndCpuRunsHaveNoQueues) {
    EXPECT_EQ(analyzeQueueLength(threeQueuedKernels()).streams.at(0).atFullQueueNs, 0);
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", 0, 1);
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", 0, kUs);
    EXPECT_TRUE(analyzeQueueLength(std::move(b).build()).streams.empty());
}

TEST(AnnotationBreakdownTest, GpuAndCpuAnnotationsByNameLargestFirstWithinHtasWindow) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", 0, 1);
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addEvent(host, EventKind::kRange, Category::kPhase, "ProfilerStep#1", 0, 100 * kUs);
    b.addEvent(host, EventKind::kRange, Category::kPhase, "ProfilerStep#2", 100 * kUs, 200 * kUs);
    b.addEvent(host, EventKind::kRange, Category::kNone, "fwd", 0, 10 * kUs);
    b.addEvent(host, EventKind::kRange, Category::kNone, "fwd", 100 * kUs, 114 * kUs);
    b.addEvent(host, EventKind::kRange, Category::kNone, "bwd", 20 * kUs, 50 * kUs);
    // Starts after the last step ends: HTA does not read it.
    b.addEvent(host, EventKind::kRange, Category::kNone, "after", 201 * kUs, 300 * kUs);
    b.addEvent(s7, EventKind::kRange, Category::kNone, "fwd", 5 * kUs, 9 * kUs);
    b.addStep(StepInfo{1, 0, 100 * kUs});
    b.addStep(StepInfo{2, 100 * kUs, 200 * kUs});
    const AnnotationBreakdownResult r = analyzeAnnotationBreakdown(std::move(b).build());
    ASSERT_EQ(r.gpu.size(), 1u);
    EXPECT_EQ(r.gpu[0].name, "fwd");
    EXPECT_EQ(r.gpu[0].ns, 4 * kUs);
    ASSERT_EQ(r.cpu.size(), 4u);                 // the two steps, bwd, fwd
    EXPECT_EQ(r.cpu[0].name, "ProfilerStep#1");  // 100 us each; ties by name
    EXPECT_EQ(r.cpu[1].name, "ProfilerStep#2");
    EXPECT_EQ(r.cpu[2].name, "bwd");
    const NamedDurations& fwd = r.cpu[3];
    EXPECT_EQ(fwd.name, "fwd");
    EXPECT_EQ(fwd.count, 2);
    EXPECT_EQ(fwd.ns, 24 * kUs);
    EXPECT_EQ(fwd.minNs, 10 * kUs);
    EXPECT_EQ(fwd.maxNs, 14 * kUs);
    EXPECT_DOUBLE_EQ(fwd.meanNs, 12.0 * kUs);
    EXPECT_NEAR(fwd.stddevNs, std::sqrt(8.0) * kUs, 1e-6);

    // A report's top 2 and the rest as "others": bwd and fwd together.
    const std::vector<NamedDurations> top = topWithOthers(r.cpu, 2);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[2].name, "others");
    EXPECT_EQ(top[2].count, 3);
    EXPECT_EQ(top[2].ns, 54 * kUs);
    EXPECT_EQ(top[2].minNs, 10 * kUs);
    EXPECT_EQ(top[2].maxNs, 30 * kUs);
    // Mean 18 us: deviations 12, -8 and -4.
    EXPECT_NEAR(top[2].stddevNs, std::sqrt((144.0 + 64.0 + 16.0) / 2.0) * kUs, 1e-6);
    EXPECT_EQ(topWithOthers(r.cpu, 3).size(), 4u);  // one left over: itself, not "others"
}

// Python frames (Kineto's python_function) and a collective's comm range are ranges on the host
// but no annotation of the program's: HTA reads user_annotation alone.
TEST(AnnotationBreakdownTest, PythonFramesAndCollectiveRangesAreNoAnnotations) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", 0, 1);
    b.addEvent(host, EventKind::kRange, Category::kNone, "train_step", 0, 10 * kUs);
    b.addEvent(host, EventKind::kRange, Category::kNone, "train.py(12): forward", 0, 5 * kUs)
        .flags = kFlagPythonFrame;
    b.addEvent(host, EventKind::kRange, Category::kComm, "record_param_comms", 5 * kUs, 6 * kUs);
    const AnnotationBreakdownResult r = analyzeAnnotationBreakdown(std::move(b).build());
    ASSERT_EQ(r.cpu.size(), 1u);
    EXPECT_EQ(r.cpu[0].name, "train_step");
}

// More names than a report shows, where the breakdown folded some into "others" already: one
// "others" row holds the folded ones and the names past the shown ones.
TEST(AnnotationBreakdownTest, AReportsTopKeepsOneOthersRow) {
    std::vector<NamedDurations> names = {{"a", 1, 50 * kUs, 50 * kUs, 50 * kUs, 50.0 * kUs},
                                         {"others", 4, 40 * kUs, 5 * kUs, 15 * kUs, 10.0 * kUs},
                                         {"b", 1, 30 * kUs, 30 * kUs, 30 * kUs, 30.0 * kUs},
                                         {"c", 2, 20 * kUs, 10 * kUs, 10 * kUs, 10.0 * kUs}};
    const std::vector<NamedDurations> top = topWithOthers(names, 2);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].name, "a");
    EXPECT_EQ(top[1].name, "b");
    EXPECT_EQ(top[2].name, "others");
    EXPECT_EQ(top[2].count, 4 + 2);
    EXPECT_EQ(top[2].ns, 60 * kUs);
    EXPECT_EQ(top[2].minNs, 5 * kUs);
    EXPECT_EQ(top[2].maxNs, 15 * kUs);
    // Nothing past the shown names but the folded "others": it stays as it is.
    EXPECT_EQ(topWithOthers({names[0], names[1]}, 1).back().count, 4);
}

// Past `shown` names, HTA folds the names past the shown-th and those whose running sum passes
// the ratio's quantile; fewer names are never folded.
TEST(DurationsByNameTest, FoldsLikeHtaOnlyPastTheShownNames) {
    DurationsByName d;
    for (int n = 1; n <= 5; ++n) {
        for (int k = 0; k < n; ++k) d.add("n" + std::to_string(n), 10 * kUs);
    }
    EXPECT_EQ(d.folded(5, 0.8).size(), 5u);  // not more than shown: as they are
    // Sums 50, 40, 30, 20, 10 us: running 50, 90, 120, 140, 150; 0.5 quantile 120.
    const std::vector<NamedDurations> folded = d.folded(4, 0.5);
    ASSERT_EQ(folded.size(), 4u);
    EXPECT_EQ(folded[0].name, "n5");
    EXPECT_EQ(folded[1].name, "n4");
    EXPECT_EQ(folded[2].name, "n3");
    EXPECT_EQ(folded[3].name, "others");  // n2 (running 140 > 120) and n1
    EXPECT_EQ(folded[3].count, 3);
    EXPECT_EQ(folded[3].ns, 30 * kUs);
}

// Launches whose call takes 10, 60 and 5 us and whose kernels start 0, 50 and 200 us after the
// call ends: HTA's outliers are the 60 us call (over its 50 us runtime cutoff) and the 200 us delay
// (over its 100 us launch-delay cutoff).
TEST(LaunchStatsTest, HtasDistributionsAndOutliersNamedByCallAndKernel) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", 0, 1);
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    const TimestampNs callUs[] = {10, 60, 5};
    const TimestampNs delayUs[] = {0, 50, 200};
    TimestampNs at = 0;
    for (int k = 0; k < 3; ++k) {
        const TimestampNs end = at + callUs[k] * kUs;
        b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", at, end)
            .correlation = k + 1;
        const TimestampNs start = end + delayUs[k] * kUs;
        b.addEvent(s7, EventKind::kKernel, Category::kMath, "kernel" + std::to_string(k), start,
                   start + kUs)
            .correlation = k + 1;
        at = start + 2 * kUs;
    }
    const PerLaunchStats p = analyzeLaunchStats(std::move(b).build()).perLaunch;
    EXPECT_EQ(p.paired, 3);
    EXPECT_DOUBLE_EQ(p.launchDelay.p50, 50.0);
    EXPECT_DOUBLE_EQ(p.launchDelay.p90, 50.0 + 0.8 * 150.0);
    EXPECT_DOUBLE_EQ(p.launchDelay.max, 200.0);
    EXPECT_DOUBLE_EQ(p.cpuDuration.p50, 10.0);
    EXPECT_DOUBLE_EQ(p.gpuDuration.max, 1.0);
    EXPECT_EQ(p.longCalls, 1);
    EXPECT_EQ(p.longDelays, 1);
    ASSERT_EQ(p.longestCalls.size(), 1u);
    EXPECT_EQ(p.longestCalls[0].work, "kernel1");
    EXPECT_EQ(p.longestCalls[0].cpuDurationNs, 60 * kUs);
    ASSERT_EQ(p.longestDelays.size(), 1u);
    EXPECT_EQ(p.longestDelays[0].call, "cudaLaunchKernel");
    EXPECT_EQ(p.longestDelays[0].work, "kernel2");
    EXPECT_EQ(p.longestDelays[0].launchDelayNs, 200 * kUs);
    EXPECT_EQ(p.longestDelays[0].correlation, 3);
}

}  // namespace
}  // namespace glueprof
