#include <gtest/gtest.h>

#include "analyzers/DeviceTimeline.h"
#include "analyzers/GlueOverhead.h"

namespace glueprof {
namespace {

// One rank, two streams, times in ns, every device event launched (correlation = its index):
//   stream 7: gemm [0, 100), "Memcpy HtoD (Pageable -> Device)" copy [100, 130),
//             elementwise [200, 250), "cudaStreamSync"-named kernel [250, 260) (HTA: other)
//   stream 9: ncclDevKernel_AllReduce [50, 180), multimem_all_reduce_kernel [300, 340)
// Unlaunched: a kernel [400, 500) with no runtime call (TraceLens leaves it out, HTA without a
// step window keeps it).
TraceModel twoStreams() {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    const std::size_t s9 = b.addLane(LaneKind::kCudaStream, "stream 9", 0, 9);
    b.addStep(StepInfo{0, 0, 600, false, 1, 0.0, 0});
    std::int64_t correlation = 0;
    auto work = [&](std::size_t lane, EventKind kind, const char* name, TimestampNs start,
                    TimestampNs end, bool launched = true) {
        ++correlation;
        b.addEvent(lane, kind, kind == EventKind::kMemcpy ? Category::kCopy : Category::kNone, name,
                   start, end, 0)
            .correlation = correlation;
        if (launched) {
            b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 0, 1, 0)
                .correlation = correlation;
        }
    };
    work(s7, EventKind::kKernel, "ampere_sgemm_128x64_nn", 0, 100);
    work(s7, EventKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)", 100, 130);
    work(s7, EventKind::kKernel, "vectorized_elementwise_kernel", 200, 250);
    work(s7, EventKind::kKernel, "cudaStreamSync_spin", 250, 260);
    work(s9, EventKind::kKernel, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 50, 180);
    work(s9, EventKind::kKernel, "multimem_all_reduce_kernel", 300, 340);
    work(s7, EventKind::kKernel, "unlaunched_kernel", 400, 500, false);
    return std::move(b).build();
}

// HTA: kernel time 0..500 = 500; busy = [0,180) + [200,260) + [300,340) + [400,500) = 380, idle
// 120; compute (HTA's types: not ^nccl.*Kernel, not memory, no Memcpy/Sync in the name) = gemm
// [0,100), elementwise [200,250), multimem [300,340) (HTA does not know it), unlaunched [400,500) =
// 290; non-compute = 500 - 290 - 120 = 90. Overlap: nccl [50,180) under compute [50,100) = 50 of
// 130 = 38.46%.
TEST(DeviceTimelineTest, HtaTemporalBreakdownAndOverlapUseHtasKernelTypes) {
    const DeviceTimelineResult r = analyzeDeviceTimeline(twoStreams());
    ASSERT_TRUE(r.hasDeviceWork);
    EXPECT_EQ(r.temporal.kernelNs, 500);
    EXPECT_EQ(r.temporal.idleNs, 120);
    EXPECT_EQ(r.temporal.computeNs, 290);
    EXPECT_EQ(r.temporal.nonComputeNs, 90);
    ASSERT_TRUE(r.commComputeOverlapPct.has_value());
    EXPECT_DOUBLE_EQ(*r.commComputeOverlapPct, 100.0 * 50.0 / 130.0);
}

// TraceLens, launched work only (0..340): computation = gemm [0,100), cudaStreamSync_spin and
// elementwise [200,260) = 160; communication = nccl [50,180) and multimem [300,340) (glueprof's
// names), 170 in all, exposed [100,180) + [300,340) = 120; memcpy [100,130) is under comm: exposed
// 0; busy = [0,180) + [200,260) + [300,340) = 280; idle 340 - 280 = 60.
TEST(DeviceTimelineTest, TraceLensGpuTimelineOfLaunchedWork) {
    const GpuTimeline g = analyzeDeviceTimeline(twoStreams()).timeline;
    EXPECT_EQ(g.totalNs, 340);
    EXPECT_EQ(g.computationNs, 160);
    EXPECT_EQ(g.totalCommNs, 170);
    EXPECT_EQ(g.exposedCommNs, 120);
    EXPECT_EQ(g.totalMemcpyNs, 30);
    EXPECT_EQ(g.exposedMemcpyNs, 0);
    EXPECT_EQ(g.busyNs, 280);
    EXPECT_EQ(g.idleNs, 60);
    EXPECT_EQ(g.computationNs + g.exposedCommNs + g.exposedMemcpyNs + g.idleNs, g.totalNs);
}

// The same launched work by TraceLens's categories (durations in ns: every kernel is short).
TEST(DeviceTimelineTest, LaunchedWorkByKernelCategoryWithTheShortKernels) {
    const KernelMix mix = analyzeDeviceTimeline(twoStreams()).kernels;
    const auto of = [&](KernelCategory c) { return mix.byCategory[static_cast<std::size_t>(c)]; };
    EXPECT_EQ(of(KernelCategory::kGemm).ns, 100);
    EXPECT_EQ(of(KernelCategory::kCopy).ns, 30);
    EXPECT_EQ(of(KernelCategory::kElementwise).ns, 50);
    EXPECT_EQ(of(KernelCategory::kComm).count, 2);
    EXPECT_EQ(of(KernelCategory::kComm).ns, 170);
    EXPECT_EQ(of(KernelCategory::kOther).ns, 10);
    EXPECT_EQ(mix.items, 6);
    EXPECT_EQ(mix.kernels, 5);
    EXPECT_EQ(mix.shortKernels, 5);
    EXPECT_EQ(mix.shareText(), "GEMM 28%, elementwise 14%, copy 8%, communication 47%, other 3%");
    EXPECT_EQ(kernelCategoryOf(EventKind::kKernel, "flash_fwd_kernel"), KernelCategory::kAttention);
    EXPECT_EQ(kernelCategoryOf(EventKind::kKernel, "triton_red_fused_native_layer_norm_0"),
              KernelCategory::kNormalization);
    EXPECT_EQ(kernelCategoryOf(EventKind::kKernel, "reduce_kernel<512, 1>"),
              KernelCategory::kReduction);
    // FlashAttention 3: a CUTLASS kernel by name, attention by what it does.
    EXPECT_EQ(kernelCategoryOf(EventKind::kKernel,
                               "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::"
                               "FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, 1, true>>>>"),
              KernelCategory::kAttention);
    // The launching op decides where the trace has it, as TraceLens's categorize_torch_op does.
    EXPECT_EQ(kernelCategoryOf(EventKind::kKernel, "void at::native::elementwise_kernel<128, 4>",
                               "aten::addmm"),
              KernelCategory::kGemm);
    EXPECT_EQ(kernelCategoryOf(EventKind::kKernel, "void at::native::elementwise_kernel<128, 4>",
                               "aten::add_"),
              KernelCategory::kElementwise);
    EXPECT_EQ(kernelCategoryOf(EventKind::kKernel, "cutlass_80_tensorop_gemm",
                               "aten::_scaled_dot_product_efficient_attention"),
              KernelCategory::kAttention);
    EXPECT_EQ(kernelCategoryOf(EventKind::kKernel, "ncclDevKernel_AllReduce_Sum_f32", "aten::mm"),
              KernelCategory::kComm);  // a collective is communication whoever launched it
}

TEST(DeviceTimelineTest, ACpuRunHasNoDeviceTimeline) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{0, 0, 100, false, 1, 0.0, 0});
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", 0, 100, 0);
    const DeviceTimelineResult r = analyzeDeviceTimeline(std::move(b).build());
    EXPECT_FALSE(r.hasDeviceWork);
    EXPECT_FALSE(r.commComputeOverlapPct.has_value());
}

TEST(CommKernelNamesTest, CollectivesByOtherNamesAreCommunication) {
    for (const char* name :
         {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "multimem_all_reduce_kernel",
          "nvshmemi_transfer_kernel", "vllm::cross_device_reduce_1stage<float, 8>",
          "two_shot_all_reduce_kernel", "deep_ep::intranode::dispatch", "all_gather_kernel"}) {
        EXPECT_TRUE(isCommKernelName(name)) << name;
    }
    for (const char* name : {"ampere_sgemm_128x64_nn", "reduce_kernel<512, 1>",
                             "vectorized_elementwise_kernel", "gather_kernel"}) {
        EXPECT_FALSE(isCommKernelName(name)) << name;
    }
}

// Device work the importer found launched outside every step (step tag none) is in no step: a
// kernel launched before the first step that runs inside step 1's window does not count there.
TEST(GlueOverheadTest, DeviceWorkTaggedWithNoStepIsNotInAnyStepsBreakdown) {
    TraceModelBuilder b;
    b.addLane(LaneKind::kHostThread, "main");
    const std::size_t stream = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addStep(StepInfo{1, 0, 100, false, 1, 0.0, 0});
    b.addEvent(stream, EventKind::kKernel, Category::kNone, "ampere_sgemm_128x64_nn", 0, 30,
               kNoTag);
    b.addEvent(stream, EventKind::kKernel, Category::kNone, "ampere_sgemm_128x64_nn", 40, 60, 1);
    const GlueOverheadResult r = analyzeGlueOverhead(std::move(b).build());
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].part(GluePart::kMath), 20);
    EXPECT_EQ(r.steps[0].part(GluePart::kIdle), 80);
}

}  // namespace
}  // namespace glueprof
