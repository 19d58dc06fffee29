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
    b.addEvent(host, EventKind::kRange, Category::kPhase, "ProfilerStep#0", 0, 1000, 0);
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

// Without torch ops (a CUDA program under Nsight), the host's time outside its runtime calls is
// its own code; without any host event, the idle is unattributed. A CPU run has no attribution.
TEST(StepAttribution, WithoutOpsTheHostsTimeOutsideIsItsOwnCodeAndACpuRunHasNone) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", -1, 1);
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addStep(StepInfo{0, 0, 100, false, 1, 0.0, 0});
    b.addEvent(host, EventKind::kRange, Category::kPhase, "iteration", 0, 100, 0);
    b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 0, 10, 0);
    b.addEvent(s7, EventKind::kKernel, Category::kNone, "k", 20, 40, 0);
    const TraceModel trace = std::move(b).build();
    const StepAttribution a = attributeSteps(trace).steps.at(0);
    EXPECT_EQ(a.of(StepCause::kLaunch), 10);
    EXPECT_EQ(a.of(StepCause::kData), 10);
    EXPECT_EQ(a.of(StepCause::kHostOutsideTorch), 60);
    EXPECT_EQ(a.of(StepCause::kUnattributed), 0);
    EXPECT_EQ(a.sum(), 100);

    TraceModelBuilder deviceOnly;
    const std::size_t stream = deviceOnly.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    deviceOnly.addStep(StepInfo{0, 0, 100, false, 1, 0.0, 0});
    deviceOnly.addEvent(stream, EventKind::kKernel, Category::kNone, "k", 20, 40, 0);
    const StepAttribution d = attributeSteps(std::move(deviceOnly).build()).steps.at(0);
    EXPECT_EQ(d.of(StepCause::kCompute), 20);
    EXPECT_EQ(d.of(StepCause::kUnattributed), 80);

    TraceModelBuilder cpu;
    const std::size_t main = cpu.addLane(LaneKind::kHostThread, "main", -1, 1);
    cpu.addStep(StepInfo{0, 0, 100, false, 1, 0.0, 0});
    cpu.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 0, 50, 0);
    EXPECT_TRUE(attributeSteps(std::move(cpu).build()).steps.empty());
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// A trimmed trace: of three kernels with launch correlation ids, the trace holds one launch. The
// host's side is recorded in part: the idle the host did not record is "host not recorded", not
// the host's own code, and the coverage says why.
TEST(StepAttribution, WhereTheTraceHoldsFewLaunchesTheHostsIdleIsNotRecorded) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", -1, 1);
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addStep(StepInfo{0, 0, 1000, false, 1, 0.0, 0});
    b.addEvent(host, EventKind::kRange, Category::kPhase, "ProfilerStep#0", 0, 1000, 0);
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", 0, 20, 0);
    b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 5, 15, 0)
        .correlation = 1;
    for (std::int64_t k = 0; k < 3; ++k) {
        b.addEvent(s7, EventKind::kKernel, Category::kNone, "k", 100 + 300 * k, 200 + 300 * k, 0)
            .correlation = k + 1;
    }
    const StepAttributionResult r = attributeSteps(std::move(b).build());
    EXPECT_FALSE(r.coverage.complete());
    EXPECT_EQ(r.coverage.deviceWork, 3);
    EXPECT_EQ(r.coverage.launchedInTrace, 1);
    EXPECT_NE(r.coverage.describe().find("recorded in part"), std::string::npos);
    const StepAttribution& a = r.steps.at(0);
    EXPECT_EQ(a.of(StepCause::kCompute), 300);
    EXPECT_EQ(a.of(StepCause::kQueued), 85);  // the one launch returned at 15, its kernel at 100
    EXPECT_EQ(a.of(StepCause::kLaunch), 15);
    EXPECT_EQ(a.of(StepCause::kHostOutsideTorch), 0);
    EXPECT_EQ(a.of(StepCause::kData), 0);
    EXPECT_EQ(a.of(StepCause::kHostUnrecorded), 1000 - 300 - 85 - 15);
    EXPECT_EQ(a.sum(), 1000);
}

// The ops, calls and frames the host was in during a cause's time, each by its own time among its
// kind (ops, calls, ranges, frames nest each in their own): the idle while the host launches goes
// to the innermost op, not to the op around it, and to the Python frame it was called from.
TEST(StepAttribution, EachIdleCauseNamesWhereTheLaunchingThreadWas) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main", -1, 1);
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addStep(StepInfo{0, 0, 1000, false, 1, 0.0, 0});
    b.addEvent(host, EventKind::kRange, Category::kPhase, "ProfilerStep#0", 0, 1000, 0);
    Event& frame =
        b.addEvent(host, EventKind::kRange, Category::kNone, "train.py(9): step", 0, 1000, 0);
    frame.flags |= kFlagPythonFrame;
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::linear", 0, 400, 0);
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", 100, 400, 0);
    b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 390, 400, 0)
        .correlation = 1;
    b.addEvent(s7, EventKind::kKernel, Category::kNone, "k", 400, 500, 0).correlation = 1;
    const StepAttributionResult r = attributeSteps(std::move(b).build());
    const auto& launch = r.sites[static_cast<std::size_t>(StepCause::kLaunch)];
    ASSERT_FALSE(launch.empty());
    // [0, 400) launching: the frame holds all of it; among the ops aten::mm holds [100, 400)
    // itself, aten::linear [0, 100) (the launch call, of another kind, holds 10 ns: fourth).
    ASSERT_EQ(launch.size(), 3u);
    EXPECT_EQ(launch[0].name, "train.py(9): step");
    EXPECT_DOUBLE_EQ(launch[0].msPerStep, 400 / 1e6);
    EXPECT_EQ(launch[1].name, "aten::mm");
    EXPECT_DOUBLE_EQ(launch[1].msPerStep, 300 / 1e6);
    EXPECT_EQ(launch[2].name, "aten::linear");
    EXPECT_DOUBLE_EQ(launch[2].msPerStep, 100 / 1e6);
    const auto& own = r.sites[static_cast<std::size_t>(StepCause::kHostOutsideTorch)];
    ASSERT_EQ(own.size(), 1u);
    EXPECT_EQ(own[0].name, "train.py(9): step");
    EXPECT_DOUBLE_EQ(own[0].msPerStep, 500 / 1e6);
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// An op on a thread that launches nothing (a pin-memory or logging thread) does not make the GPU's
// idle "launching": the launching thread was in its own code then. A range that only partly
// overlaps the op open before it (across its edge) counts its own time and is no one's parent.
TEST(StepAttribution, OnlyTheLaunchingThreadsStateNamesTheIdle) {
    TraceModelBuilder b;
    const std::size_t main = b.addLane(LaneKind::kHostThread, "main", -1, 1);
    const std::size_t pin = b.addLane(LaneKind::kHostThread, "pin memory", -1, 2);
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addStep(StepInfo{0, 0, 1000, false, 1, 0.0, 0});
    b.addEvent(main, EventKind::kRange, Category::kPhase, "ProfilerStep#0", 0, 1000, 0);
    b.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 0, 20, 0);
    b.addEvent(main, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 5, 15, 0)
        .correlation = 1;
    b.addEvent(main, EventKind::kRange, Category::kNone, "across", 10, 300, 0);
    b.addEvent(main, EventKind::kRange, Category::kNone, "partial", 250, 400, 0);
    b.addEvent(s7, EventKind::kKernel, Category::kNone, "k", 15, 100, 0).correlation = 1;
    b.addEvent(pin, EventKind::kOp, Category::kMath, "aten::pin_memory", 200, 800, 0);
    const StepAttributionResult r = attributeSteps(std::move(b).build());
    const StepAttribution& a = r.steps.at(0);
    EXPECT_EQ(a.of(StepCause::kLaunch), 15);  // the main thread's op [0, 15) before the kernel
    EXPECT_EQ(a.of(StepCause::kHostOutsideTorch), 1000 - 15 - 85);
    EXPECT_EQ(a.sum(), 1000);
    // Of the own-code idle [100, 1000): "across" holds [100, 300); "partial", which crosses its
    // end, is not its child: it holds its own [250, 400).
    const auto& own = r.sites[static_cast<std::size_t>(StepCause::kHostOutsideTorch)];
    ASSERT_EQ(own.size(), 2u);
    EXPECT_EQ(own[0].name, "across");
    EXPECT_DOUBLE_EQ(own[0].msPerStep, 200 / 1e6);
    EXPECT_EQ(own[1].name, "partial");
    EXPECT_DOUBLE_EQ(own[1].msPerStep, 150 / 1e6);
}

}  // namespace
}  // namespace glueprof
