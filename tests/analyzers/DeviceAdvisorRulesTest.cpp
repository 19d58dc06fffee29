#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analyzers/AdvisorRules.h"
#include "analyzers/Analysis.h"
#include "analyzers/TensorCorePeaks.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

using testing_units::kUs;

// A GPU trace of one measured step [0, stepUs) us on a host lane and CUDA streams 7 and 9, with
// helpers that add a launch and its device work under one correlation id.
struct GpuTrace {
    TraceModelBuilder b;
    std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    std::size_t s7 = b.addLane(LaneKind::kCudaStream, "GPU 0 stream 7", 0, 7);
    std::size_t s9 = b.addLane(LaneKind::kCudaStream, "GPU 0 stream 9", 0, 9);
    std::int64_t correlation = 0;

    explicit GpuTrace(TimestampNs stepUs) { step(1, 0, stepUs); }
    // A step and its range on the host (every trace's steps are the host's ranges).
    void step(std::int32_t n, TimestampNs startUs, TimestampNs endUs) {
        b.addStep(StepInfo{n, startUs * kUs, endUs * kUs, false, 1, 0.0, 0});
        b.addEvent(host, EventKind::kRange, Category::kPhase, "ProfilerStep#" + std::to_string(n),
                   startUs * kUs, endUs * kUs, n);
    }
    Event& launch(const char* call, TimestampNs startUs, TimestampNs endUs) {
        Event& e = b.addEvent(host, EventKind::kRuntime, Category::kNone, call, startUs * kUs,
                              endUs * kUs, 1);
        e.correlation = ++correlation;
        return e;
    }
    Event& kernel(std::size_t stream, const char* name, TimestampNs startUs, TimestampNs endUs) {
        Event& e = b.addEvent(stream, EventKind::kKernel, Category::kNone, name, startUs * kUs,
                              endUs * kUs, 1);
        e.correlation = correlation;
        return e;
    }
    // A copy from the device into pageable host memory, of the last launch.
    Event& pageableRead(std::size_t stream, TimestampNs startUs, TimestampNs endUs) {
        Event& e = b.addEvent(stream, EventKind::kMemcpy, Category::kCopy,
                              "Memcpy DtoH (Device -> Pageable)", startUs * kUs, endUs * kUs, 1);
        e.correlation = correlation;
        e.srcKind = MemoryKind::kDevice;
        e.dstKind = MemoryKind::kPageable;
        return e;
    }
    std::vector<Finding> findings() { return analyze(std::move(b).build()).findings; }
};

const Finding* findingOf(const std::vector<Finding>& findings, const char* rule) {
    auto it = std::find_if(findings.begin(), findings.end(),
                           [&](const Finding& f) { return f.rule == rule; });
    return it == findings.end() ? nullptr : &*it;
}

// 20 kernels of 5 us, each launched 40 us after the one before from inside an aten op that
// starts 28 us earlier, and starting 2 us after its call: every gap (35 us) is host wait, 665 us
// of the 765 us span, with the host in torch ops for 32 us of each.
TEST(DeviceAdvisorRulesTest, ShortKernelsWaitingOnTheirLaunchesAreLaunchBound) {
    GpuTrace t(1000);
    for (TimestampNs i = 0; i < 20; ++i) {
        t.b.addEvent(t.host, EventKind::kOp, Category::kMath, "aten::add",
                     std::max<TimestampNs>(0, 40 * i - 28) * kUs, (40 * i + 4) * kUs, 1);
        t.launch("cudaLaunchKernel", 40 * i, 40 * i + 3);
        t.kernel(t.s7, "vectorized_elementwise_kernel", 40 * i + 5, 40 * i + 10);
    }
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kLaunchBound);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.665);
    EXPECT_NE(f->evidence.find("20 of 20 kernels run under 10 us"), std::string::npos)
        << f->evidence;
    EXPECT_NE(f->fix.find("reduce-overhead"), std::string::npos);
    EXPECT_EQ(findingOf(findings, advisor_rules::kCrossStreamWaits), nullptr);
}

// The same kernels and launches without the ops: the host is outside torch for most of the GPU's
// idle time, waiting for something else: not launch-bound.
TEST(DeviceAdvisorRulesTest, AnIdleGpuWhileTheHostIsOutsideTorchIsNotLaunchBound) {
    GpuTrace t(1000);
    for (TimestampNs i = 0; i < 20; ++i) {
        t.launch("cudaLaunchKernel", 40 * i, 40 * i + 3);
        t.kernel(t.s7, "vectorized_elementwise_kernel", 40 * i + 5, 40 * i + 10);
    }
    EXPECT_EQ(findingOf(t.findings(), advisor_rules::kLaunchBound), nullptr);
}

// cudaFree in the first measured step fills the allocator's cache; in the second it is churn.
TEST(DeviceAdvisorRulesTest, AllocationsOnlyInTheFirstMeasuredStepAreNotChurn) {
    GpuTrace t(100);
    t.step(2, 100, 200);
    t.launch("cudaLaunchKernel", 0, 1);
    t.kernel(t.s7, "ampere_sgemm_128x64_nn", 2, 50);
    t.b.addEvent(t.host, EventKind::kRuntime, Category::kNone, "cudaMalloc", 60 * kUs, 90 * kUs, 1);
    EXPECT_EQ(findingOf(t.findings(), advisor_rules::kAllocatorChurn), nullptr);
}

// gemm [0, 100) on stream 7, an all-reduce [50, 300) on stream 9: 200 us of it exposed.
TEST(DeviceAdvisorRulesTest, CommunicationNoComputationHidesIsExposed) {
    GpuTrace t(400);
    t.launch("cudaLaunchKernel", 0, 1);
    t.kernel(t.s7, "ampere_sgemm_128x64_nn", 0, 100);
    t.launch("cudaLaunchKernel", 2, 3);
    t.kernel(t.s9, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 50, 300);
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kExposedCommunication);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.2);
    EXPECT_NE(f->fix.find("no_sync"), std::string::npos);
}

// aten::item [0, 50) issues a copy to pageable memory; its call holds the host [1, 41), the copy
// runs from 10: pinning could save the 31 us from there on.
TEST(DeviceAdvisorRulesTest, PageableCopiesAreNamedWithTheOpThatIssuesThem) {
    GpuTrace t(100);
    t.b.addEvent(t.host, EventKind::kOp, Category::kMath, "aten::item", 0, 50 * kUs, 1);
    t.launch("cudaMemcpyAsync", 1, 41);
    t.pageableRead(t.s7, 10, 12);
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kPageableCopies);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.031);
    EXPECT_NE(f->evidence.find("aten::item (1 per step, device to host)"), std::string::npos)
        << f->evidence;
    EXPECT_NE(f->fix.find("non_blocking=True"), std::string::npos);

    // The same copy under the op the program called (a Python `if` on a tensor): both named.
    GpuTrace nested(100);
    nested.b.addEvent(nested.host, EventKind::kOp, Category::kMath, "aten::is_nonzero", 0, 60 * kUs,
                      1);
    nested.b.addEvent(nested.host, EventKind::kOp, Category::kMath, "aten::_local_scalar_dense",
                      1 * kUs, 50 * kUs, 1);
    nested.launch("cudaMemcpyAsync", 2, 41);
    nested.pageableRead(nested.s7, 10, 12);
    const std::vector<Finding> named = nested.findings();
    const Finding* n = findingOf(named, advisor_rules::kPageableCopies);
    ASSERT_NE(n, nullptr);
    EXPECT_NE(n->evidence.find("aten::is_nonzero (via aten::_local_scalar_dense) (1 per step"),
              std::string::npos)
        << n->evidence;
}

// Two 1000 us steps, each: a kernel [10, 200) us, then aten::item blocks the host [20, 200) us
// on it (its sync), and the next launch comes at 590 us: the whole GPU is idle [200, 600) after
// the sync, 400 us a step. A second sync right after the first ([205, 206) us,
// cudaDeviceSynchronize) begins with the GPU idle already: it leaves no idle of its own. The idle
// after the sync, the host outside torch, is this rule's and not host_outside_torch's too.
TEST(DeviceAdvisorRulesTest, GpuIdleAfterHostSyncsIsASyncStallNamedByTheProgramsOp) {
    GpuTrace t(1000);
    t.step(2, 1000, 2000);
    for (TimestampNs step = 1; step <= 2; ++step) {
        const TimestampNs at = (step - 1) * 1000;
        t.launch("cudaLaunchKernel", at + 1, at + 5).step = static_cast<std::int32_t>(step);
        t.kernel(t.s7, "ampere_sgemm_128x64_nn", at + 10, at + 200).step =
            static_cast<std::int32_t>(step);
        t.b.addEvent(t.host, EventKind::kOp, Category::kMath, "aten::item", (at + 19) * kUs,
                     (at + 201) * kUs, static_cast<std::int32_t>(step));
        t.b.addEvent(t.host, EventKind::kOp, Category::kMath, "aten::_local_scalar_dense",
                     (at + 19) * kUs, (at + 201) * kUs, static_cast<std::int32_t>(step));
        t.b.addEvent(t.host, EventKind::kSync, Category::kNone, "cudaStreamSynchronize",
                     (at + 20) * kUs, (at + 200) * kUs, static_cast<std::int32_t>(step));
        t.b.addEvent(t.host, EventKind::kSync, Category::kNone, "cudaDeviceSynchronize",
                     (at + 205) * kUs, (at + 206) * kUs, static_cast<std::int32_t>(step));
        t.launch("cudaLaunchKernel", at + 590, at + 595).step = static_cast<std::int32_t>(step);
        t.kernel(t.s7, "ampere_sgemm_128x64_nn", at + 600, at + 900).step =
            static_cast<std::int32_t>(step);
    }
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kSyncStalls);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.4);
    EXPECT_NE(f->evidence.find("host syncs, 2 per step (aten::item (1 per step, 0.400 ms idle "
                               "after); cudaDeviceSynchronize (1 per step, 0.000 ms idle after))"),
              std::string::npos)
        << f->evidence;
    // The figures themselves, beside the sentence.
    ASSERT_NE(f->metric("idle_ms_per_step"), nullptr);
    EXPECT_DOUBLE_EQ(f->metric("idle_ms_per_step")->value, 0.4);
    EXPECT_EQ(f->metric("idle_ms_per_step")->unit, "ms/step");
    ASSERT_EQ(f->refs.size(), 2u);
    EXPECT_EQ(f->refs[0].role, "sync_op");
    EXPECT_EQ(f->refs[0].name, "aten::item");
    EXPECT_NE(f->evidence.find("40% of step time"), std::string::npos) << f->evidence;
    EXPECT_EQ(findingOf(findings, advisor_rules::kHostOutsideTorch), nullptr);

    // A sync issued while the GPU is idle already (its work ended at 100 us, the sync runs
    // [500, 510) us) empties no queue: the idle after it is not its doing.
    GpuTrace idle(1000);
    idle.launch("cudaLaunchKernel", 1, 5);
    idle.kernel(idle.s7, "ampere_sgemm_128x64_nn", 10, 100);
    idle.b.addEvent(idle.host, EventKind::kOp, Category::kMath, "aten::item", 499 * kUs, 511 * kUs,
                    1);
    idle.b.addEvent(idle.host, EventKind::kSync, Category::kNone, "cudaStreamSynchronize",
                    500 * kUs, 510 * kUs, 1);
    idle.launch("cudaLaunchKernel", 890, 895);
    idle.kernel(idle.s7, "ampere_sgemm_128x64_nn", 900, 990);
    EXPECT_EQ(findingOf(idle.findings(), advisor_rules::kSyncStalls), nullptr);

    // A sync after the trace's last device work (the program's final drain) leaves nothing
    // waiting to be launched: no stall.
    GpuTrace last(1000);
    last.launch("cudaLaunchKernel", 1, 5);
    last.kernel(last.s7, "ampere_sgemm_128x64_nn", 10, 200);
    last.b.addEvent(last.host, EventKind::kSync, Category::kNone, "cudaDeviceSynchronize", 20 * kUs,
                    200 * kUs, 1);
    EXPECT_EQ(findingOf(last.findings(), advisor_rules::kSyncStalls), nullptr);
}

// A gemm of 50 us, then 12 elementwise kernels of 10 us with 5 us gaps before each (launched
// early: kernel wait): 120 of 170 us of kernel time, 60 us of gaps.
TEST(DeviceAdvisorRulesTest, ManyElementwiseKernelsPointToFusionSavingAtMostTheirGaps) {
    GpuTrace t(400);
    t.launch("cudaLaunchKernel", 0, 1);
    t.kernel(t.s7, "ampere_sgemm_128x64_nn", 10, 60);
    for (TimestampNs i = 0; i < 12; ++i) {
        t.launch("cudaLaunchKernel", 2 + i, 3 + i);
        t.kernel(t.s7, "vectorized_elementwise_kernel<4, add>", 65 + 15 * i, 75 + 15 * i);
    }
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kElementwiseFusion);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.06);
    EXPECT_NE(f->fix.find("torch.compile"), std::string::npos);
}

TEST(DeviceAdvisorRulesTest, DriverAllocationsInsideASteadyStateStepAreAllocatorChurn) {
    GpuTrace t(100);
    t.step(2, 100, 200);
    t.launch("cudaLaunchKernel", 0, 1);
    t.kernel(t.s7, "ampere_sgemm_128x64_nn", 2, 50);
    t.b.addEvent(t.host, EventKind::kRuntime, Category::kNone, "cudaFree", 160 * kUs, 190 * kUs, 2);
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kAllocatorChurn);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.03);
    EXPECT_NE(f->evidence.find("cudaFree 1"), std::string::npos) << f->evidence;
}

// Two 1000 us steps; in each the first op starts at 600 us, its kernel runs [620, 900) us.
void addStepsStartingIdle(GpuTrace& t) {
    t.step(2, 1000, 2000);
    for (TimestampNs step = 1; step <= 2; ++step) {
        const TimestampNs at = (step - 1) * 1000;
        const auto tag = static_cast<std::int32_t>(step);
        t.b.addEvent(t.host, EventKind::kOp, Category::kMath, "aten::mm", (at + 600) * kUs,
                     (at + 610) * kUs, tag);
        t.launch("cudaLaunchKernel", at + 601, at + 605).step = tag;
        t.kernel(t.s7, "ampere_sgemm_128x64_nn", at + 620, at + 900).step = tag;
    }
}

// The GPU is idle [0, 620) us of each step, the host in no op for 610 us of it; [605, 620) the
// kernel is already launched (queued), so the step waited for its input [0, 600): what the
// attribution gives the wait for input, and what the finding may claim.
TEST(DeviceAdvisorRulesTest, AnIdleGpuAtTheStepsStartWithTheHostOutsideOpsIsADataLoaderStall) {
    GpuTrace t(1000);
    addStepsStartingIdle(t);
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kDataLoaderStall);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.60);
    EXPECT_NE(f->fix.find("num_workers"), std::string::npos);

    // One such step alone shows no "each step": its idle start may be anything the program did
    // first.
    GpuTrace one(1000);
    one.b.addEvent(one.host, EventKind::kOp, Category::kMath, "aten::mm", 600 * kUs, 610 * kUs, 1);
    one.launch("cudaLaunchKernel", 601, 605);
    one.kernel(one.s7, "ampere_sgemm_128x64_nn", 620, 900);
    EXPECT_EQ(findingOf(one.findings(), advisor_rules::kDataLoaderStall), nullptr);

    // The same steps with a copy at 100 us whose launch the trace lacks (a trimmed trace: in no
    // step): the host's side of the step is cut, so no stall is claimed.
    GpuTrace trimmed(1000);
    addStepsStartingIdle(trimmed);
    trimmed.b.addEvent(trimmed.s9, EventKind::kMemcpy, Category::kCopy, "Memcpy HtoD", 100 * kUs,
                       150 * kUs, kNoTag);
    EXPECT_EQ(findingOf(trimmed.findings(), advisor_rules::kDataLoaderStall), nullptr);
}

// `steps` 1000 us steps, each with a kernel launched from an op at its start and running from
// 10 us to `kernelEndUs(step)` us.
template <class KernelEnd>
void addStepsWithOneKernel(GpuTrace& t, TimestampNs steps, KernelEnd kernelEndUs) {
    for (TimestampNs step = 1; step <= steps; ++step) {
        const TimestampNs at = (step - 1) * 1000;
        const auto tag = static_cast<std::int32_t>(step);
        if (step > 1) t.step(tag, at, at + 1000);
        t.b.addEvent(t.host, EventKind::kOp, Category::kMath, "aten::mm", at * kUs, (at + 8) * kUs,
                     tag);
        t.launch("cudaLaunchKernel", at + 1, at + 5).step = tag;
        t.kernel(t.s7, "ampere_sgemm_128x64_nn", at + 10, at + kernelEndUs(step)).step = tag;
    }
}

// Two 1000 us steps whose kernel runs [10, 50) us, launched from an op at their start: the GPU
// is then idle [50, 1000) with no torch op on the host, 950 us of each step.
TEST(DeviceAdvisorRulesTest, GpuIdleWithTheHostOutsideTorchIsTimeInCodeTheTraceDoesNotShow) {
    const auto short50 = [](TimestampNs) { return TimestampNs{50}; };
    GpuTrace t(1000);
    addStepsWithOneKernel(t, 2, short50);
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kHostOutsideTorch);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.95);
    EXPECT_NE(f->evidence.find("95% of step time"), std::string::npos) << f->evidence;
    EXPECT_NE(f->fix.find("with_stack=True"), std::string::npos) << f->fix;

    // With a copy whose launch the trace lacks (in no step) inside a step: the host's side of
    // the step is cut, so what the host ran cannot be told.
    GpuTrace cut(1000);
    addStepsWithOneKernel(cut, 2, short50);
    cut.b.addEvent(cut.s9, EventKind::kMemcpy, Category::kCopy, "Memcpy HtoD", 300 * kUs, 310 * kUs,
                   kNoTag);
    EXPECT_EQ(findingOf(cut.findings(), advisor_rules::kHostOutsideTorch), nullptr);

    // Three steps, the GPU busy through two of them and idle 95% of the third (one long pause:
    // a checkpoint save): 32% of the steps' time, but the typical step is not idle, no finding.
    GpuTrace pause(1000);
    addStepsWithOneKernel(pause, 3, [](TimestampNs step) { return step == 3 ? 50 : 995; });
    EXPECT_EQ(findingOf(pause.findings(), advisor_rules::kHostOutsideTorch), nullptr);

    // The same steps with the host in a torch op through that idle (the op's own host work, not
    // code outside the trace): 20 us a step outside, no finding.
    GpuTrace inside(1000);
    addStepsWithOneKernel(inside, 2, short50);
    for (TimestampNs step = 1; step <= 2; ++step) {
        const TimestampNs at = (step - 1) * 1000;
        inside.b.addEvent(inside.host, EventKind::kOp, Category::kMath, "aten::nonzero",
                          (at + 40) * kUs, (at + 990) * kUs, static_cast<std::int32_t>(step));
    }
    EXPECT_EQ(findingOf(inside.findings(), advisor_rules::kHostOutsideTorch), nullptr);
}

// Twenty launches of 5 us and one of 3 ms (cuDNN's first call) in a 10 ms step, and a 1 ms
// cudaStreamCreate and a 2 ms cudaStreamSynchronize (a wait, not a first call's cost): 4 ms, 40%
// of the step, in first calls.
TEST(DeviceAdvisorRulesTest, MillisecondLaunchCallsTakingTheStepAreWarmupInTheProfile) {
    GpuTrace t(10000);
    for (TimestampNs i = 0; i < 20; ++i) {
        t.launch("cudaLaunchKernel", 100 * i, 100 * i + 5);
        t.kernel(t.s7, "ampere_sgemm_128x64_nn", 100 * i + 6, 100 * i + 50);
    }
    t.launch("cudaLaunchKernel", 3000, 6000);
    t.kernel(t.s7, "cask_cudnn::computeOffsetsKernel", 6001, 6005);
    t.b.addEvent(t.host, EventKind::kRuntime, Category::kNone, "cudaStreamCreateWithFlags",
                 6100 * kUs, 7100 * kUs, 1);
    t.b.addEvent(t.host, EventKind::kRuntime, Category::kNone, "cudaStreamSynchronize", 7200 * kUs,
                 9200 * kUs, 1);
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kWarmupInProfile);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 4.0);
    EXPECT_NE(f->evidence.find("cask_cudnn::computeOffsetsKernel"), std::string::npos)
        << f->evidence;
    EXPECT_NE(f->evidence.find("40%"), std::string::npos) << f->evidence;
    EXPECT_EQ(f->evidence.find("cudaStreamSynchronize"), std::string::npos) << f->evidence;
    // Each call named with its count and its total, not as a product ("N x T").
    EXPECT_NE(f->evidence.find("cudaLaunchKernel (1 call, 3.000 ms in all)"), std::string::npos)
        << f->evidence;

    // The same slow launch in a 100 ms step: 3% of it, a warm-up that does not distort the step.
    GpuTrace quiet(100000);
    quiet.launch("cudaLaunchKernel", 0, 5);
    quiet.kernel(quiet.s7, "ampere_sgemm_128x64_nn", 6, 50);
    quiet.launch("cudaLaunchKernel", 3000, 6000);
    quiet.kernel(quiet.s7, "cask_cudnn::computeOffsetsKernel", 6001, 6005);
    const std::vector<Finding> none = quiet.findings();
    EXPECT_EQ(findingOf(none, advisor_rules::kWarmupInProfile), nullptr);

    // Slow launches of a kernel launched before (3 ms each, the device busy behind them): a launch
    // that waits for the device, spread over the step, is not a first call's cost.
    GpuTrace blocking(10000);
    blocking.launch("cudaLaunchKernel", 0, 5);
    blocking.kernel(blocking.s7, "ampere_sgemm_128x64_nn", 6, 3000);
    for (TimestampNs i = 1; i <= 3; ++i) {
        blocking.launch("cudaLaunchKernel", 3000 * i - 2990, 3000 * i);
        blocking.kernel(blocking.s7, "ampere_sgemm_128x64_nn", 3000 * i + 1, 3000 * i + 2990);
    }
    EXPECT_EQ(findingOf(blocking.findings(), advisor_rules::kWarmupInProfile), nullptr);
}

// k2 is launched long before k1 ends but starts 190 us after it, behind a stream wait.
TEST(DeviceAdvisorRulesTest, IdleThatIsWaitingOnOtherStreamsIsNamed) {
    GpuTrace t(300);
    t.launch("cudaLaunchKernel", 0, 1);
    t.kernel(t.s7, "ampere_sgemm_128x64_nn", 2, 12);
    t.b.addEvent(t.host, EventKind::kRuntime, Category::kNone, "cudaStreamWaitEvent", 3 * kUs,
                 4 * kUs, 1);
    t.launch("cudaLaunchKernel", 5, 6);
    t.kernel(t.s7, "ampere_sgemm_128x64_nn", 202, 212);
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kCrossStreamWaits);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.19);
    EXPECT_EQ(findingOf(findings, advisor_rules::kLaunchBound), nullptr);
}

// A side stream that waits between its kernels while the compute stream runs: the GPU is never
// idle, so no stream serializes anything (a healthy DDP trace's NCCL stream looks so).
TEST(DeviceAdvisorRulesTest, ASideStreamWaitingWhileAnotherComputesIsNoCrossStreamWait) {
    GpuTrace t(300);
    t.launch("cudaLaunchKernel", 0, 1);
    t.kernel(t.s7, "ampere_sgemm_128x64_nn", 2, 290);
    t.launch("cudaLaunchKernel", 1, 2);
    t.kernel(t.s9, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 3, 13);
    t.b.addEvent(t.host, EventKind::kRuntime, Category::kNone, "cudaStreamWaitEvent", 3 * kUs,
                 4 * kUs, 1);
    t.launch("cudaLaunchKernel", 5, 6);
    t.kernel(t.s9, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 203, 213);
    EXPECT_EQ(findingOf(t.findings(), advisor_rules::kCrossStreamWaits), nullptr);
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// FP32 GEMMs on an A100 (told by the kernels' "ampere_" prefix here: no device name): 200 us of
// the step's 300 us of kernels; an Ampere part's lowest TF32/FP32 peak ratio is 62.5/31.2, so at
// most 200 x (1 - 31.2/62.5) us is saved. A TF32 GEMM is not FP32's.
TEST(DeviceAdvisorRulesTest, Fp32GemmsOnATensorCoreGpuAreBoundedByThePeakRatio) {
    GpuTrace t(1000);
    t.launch("cudaLaunchKernel", 0, 5);
    t.kernel(t.s7, "ampere_sgemm_128x64_nn", 10, 210);
    t.launch("cudaLaunchKernel", 5, 10);
    t.kernel(t.s7, "sm80_xmma_gemm_tf32f32_tf32f32_f32_nn", 210, 310);
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kFp32Gemms);
    ASSERT_NE(f, nullptr);
    EXPECT_NEAR(f->savingMsPerStep, 0.2 * (1.0 - 31.2 / 62.5), 1e-12);
    EXPECT_NE(f->evidence.find("an Ampere GPU"), std::string::npos) << f->evidence;
    EXPECT_NE(f->fix.find("allow_tf32"), std::string::npos);
    EXPECT_FALSE(isFp32GemmKernel("ampere_fp16_sgemm_fp16_32x128_tn"));
    EXPECT_FALSE(isFp32GemmKernel("cutlass_80_tensorop_s1688gemm_64x64"));
    EXPECT_TRUE(isFp32GemmKernel("volta_sgemm_128x32_nt"));
}

// Two streams each busy 300 us of a 1000 us step, one after the other: at most the less busy
// one's 300 us is saved. Overlapping, no finding.
TEST(DeviceAdvisorRulesTest, StreamsThatRunOneAfterAnotherAreSerialized) {
    GpuTrace t(1000);
    t.launch("cudaLaunchKernel", 0, 5);
    t.kernel(t.s7, "k1", 10, 310);
    t.launch("cudaLaunchKernel", 5, 10);
    t.kernel(t.s9, "k2", 310, 610);
    const std::vector<Finding> findings = t.findings();
    const Finding* f = findingOf(findings, advisor_rules::kSerializedStreams);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.3);

    GpuTrace side(1000);
    side.launch("cudaLaunchKernel", 0, 5);
    side.kernel(side.s7, "k1", 10, 310);
    side.launch("cudaLaunchKernel", 5, 10);
    side.kernel(side.s9, "k2", 20, 320);
    EXPECT_EQ(findingOf(side.findings(), advisor_rules::kSerializedStreams), nullptr);
}

// The GPU idle 600 us of a 1000 us step while the host runs a slow CPU-side op, the kernels long
// (not launch overhead): the host's own work in its ops, named, with the attributed idle as the
// saving; the same idle behind 20 short kernels is launch_bound's instead.
TEST(DeviceAdvisorRulesTest, TheGpuWaitingOnSlowHostOpsIsHostBoundNotLaunchBound) {
    GpuTrace t(1000);
    t.b.addEvent(t.host, EventKind::kOp, Category::kMath, "aten::nonzero", 0 * kUs, 600 * kUs, 1);
    t.launch("cudaLaunchKernel", 600, 605);
    t.kernel(t.s7, "ampere_sgemm_128x64_nn", 606, 1000);
    TraceModel trace = std::move(t.b).build();
    const AnalysisResult a = analyze(trace);
    const Finding* f = findingOf(a.findings, advisor_rules::kHostBoundOps);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(findingOf(a.findings, advisor_rules::kLaunchBound), nullptr);
    // [0, 605) the host in the op and the launch; [605, 606) the kernel queued.
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.605);
    EXPECT_NE(f->evidence.find("aten::nonzero"), std::string::npos) << f->evidence;
}

// nvFuser compiling a kernel 400 us of a 1000 us step: the compile time, named, is the saving,
// and the attribution gives the GPU's idle then to compilation.
TEST(DeviceAdvisorRulesTest, JitCompilationInsideTheStepsIsFoundAndClaimed) {
    GpuTrace t(1000);
    t.b.addEvent(t.host, EventKind::kRange, Category::kNone, "KernelExecutor::compileFusion",
                 100 * kUs, 500 * kUs, 1);
    t.b.addEvent(t.host, EventKind::kRange, Category::kNone, "executor_utils::NVRTC", 200 * kUs,
                 450 * kUs, 1);
    t.launch("cudaLaunchKernel", 600, 605);
    t.kernel(t.s7, "nvfuser_none_f0_c0_r0_g0", 610, 900);
    TraceModel trace = std::move(t.b).build();
    const AnalysisResult a = analyze(trace);
    const Finding* f = findingOf(a.findings, advisor_rules::kJitCompile);
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->savingMsPerStep, 0.4);
    EXPECT_NE(f->evidence.find("KernelExecutor::compileFusion"), std::string::npos) << f->evidence;
    EXPECT_EQ(a.attribution.steps.at(0).of(StepCause::kCompile), 400 * kUs);
}

}  // namespace
}  // namespace glueprof
