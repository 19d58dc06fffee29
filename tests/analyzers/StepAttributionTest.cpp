// Every nanosecond of a step attributed once, on each GPU: busy by kind, idle by what the host did.
#include <gtest/gtest.h>

#include "analyzers/StepAttribution.h"
#include "profiler/core/BlockingCopy.h"

namespace glueprof {
namespace {

// One step [0, 1000) on GPU 0 (two streams) and GPU 1 (one stream):
//   host:   op [0, 60) with its launch call [10, 40); sync [500, 600); blocking copy [700, 750);
//           a communication range [800, 850); nothing after 850.
//   GPU 0:  compute [100, 400) on stream 7, a collective [300, 480) on stream 9 (its first 100 ns
//           beside compute count as compute), a copy [600, 650), a memset [650, 660).
//   GPU 1:  compute [100, 200).
TraceModel oneStep() {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", -1, 1);
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    const std::size_t s9 = b.addLane(LaneKind::kCudaStream, "stream 9", 0, 9);
    const std::size_t g1 = b.addLane(LaneKind::kCudaStream, "stream 7", 1, 7);
    b.addStep(StepInfo{0, 0, 1000, false, 1, 0.0, 0});
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", 0, 60, 0);
    b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 10, 40, 0);
    b.addEvent(host, EventKind::kSync, Category::kSync, "cudaStreamSynchronize", 500, 600, 0);
    b.addEvent(host, EventKind::kSync, Category::kSync, names::kBlockingDtoHCopy, 700, 750, 0);
    b.addEvent(host, EventKind::kRange, Category::kComm, "all_reduce", 800, 850, 0);
    b.addEvent(s7, EventKind::kKernel, Category::kNone, "ampere_sgemm", 100, 400, 0);
    b.addEvent(s9, EventKind::kKernel, Category::kNone, "ncclDevKernel_AllReduce", 300, 480, 0);
    b.addEvent(s7, EventKind::kMemcpy, Category::kCopy, "Memcpy DtoH", 600, 650, 0);
    b.addEvent(s7, EventKind::kMemset, Category::kNone, "Memset", 650, 660, 0);
    b.addEvent(g1, EventKind::kKernel, Category::kNone, "ampere_sgemm", 100, 200, 0);
    return std::move(b).build();
}

TEST(StepAttribution, EveryNanosecondOfTheStepHasOneCausePerDevice) {
    const TraceModel trace = oneStep();
    const StepAttributionResult r = attributeSteps(trace);
    ASSERT_EQ(r.steps.size(), 2u);
    const StepAttribution& g0 = r.steps[0];
    EXPECT_EQ(g0.device, 0);
    EXPECT_EQ(g0.wallNs, 1000);
    EXPECT_EQ(g0.of(StepCause::kCompute), 300);
    EXPECT_EQ(g0.of(StepCause::kCommunication), 80);  // [400, 480)
    EXPECT_EQ(g0.of(StepCause::kCopy), 50);
    EXPECT_EQ(g0.of(StepCause::kMemset), 10);
    EXPECT_EQ(g0.of(StepCause::kSyncWait), 100);     // [500, 600)
    EXPECT_EQ(g0.of(StepCause::kBlockingCopy), 50);  // [700, 750)
    EXPECT_EQ(g0.of(StepCause::kCommWait), 50);      // [800, 850)
    EXPECT_EQ(g0.of(StepCause::kLaunch), 60);        // the op [0, 60)
    EXPECT_EQ(g0.of(StepCause::kData), 40);          // [60, 100): before the first work
    // [480, 500), [660, 700), [750, 800), [850, 1000): the host in no op, on a trace with ops.
    EXPECT_EQ(g0.of(StepCause::kHostOutsideTorch), 20 + 40 + 50 + 150);
    EXPECT_EQ(g0.of(StepCause::kUnattributed), 0);
    EXPECT_EQ(g0.sum(), g0.wallNs);

    const StepAttribution& g1 = r.steps[1];
    EXPECT_EQ(g1.device, 1);
    EXPECT_EQ(g1.of(StepCause::kCompute), 100);
    EXPECT_EQ(g1.of(StepCause::kSyncWait), 100);
    EXPECT_EQ(g1.sum(), g1.wallNs);
    EXPECT_DOUBLE_EQ(r.medianMs[static_cast<std::size_t>(StepCause::kCompute)], 300 / 1e6);
}

TEST(StepAttribution, WithoutOpsTheHostsTimeOutsideIsUnattributedAndACpuRunHasNone) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", -1, 1);
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addStep(StepInfo{0, 0, 100, false, 1, 0.0, 0});
    b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 0, 10, 0);
    b.addEvent(s7, EventKind::kKernel, Category::kNone, "k", 20, 40, 0);
    const TraceModel trace = std::move(b).build();
    const StepAttribution a = attributeSteps(trace).steps.at(0);
    EXPECT_EQ(a.of(StepCause::kLaunch), 10);
    EXPECT_EQ(a.of(StepCause::kData), 10);
    EXPECT_EQ(a.of(StepCause::kUnattributed), 60);
    EXPECT_EQ(a.sum(), 100);

    TraceModelBuilder cpu;
    const std::size_t main = cpu.addLane(LaneKind::kHostThread, "main", -1, 1);
    cpu.addStep(StepInfo{0, 0, 100, false, 1, 0.0, 0});
    cpu.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 0, 50, 0);
    EXPECT_TRUE(attributeSteps(std::move(cpu).build()).steps.empty());
}

}  // namespace
}  // namespace glueprof
