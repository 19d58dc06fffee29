// The interval toolkit, copy/compute overlap and the glue-overhead split on hand-built traces whose
// answers are worked out in the comments.
#include <gtest/gtest.h>

#include "analyzers/Analysis.h"

#include "analyzers/Advisor.h"
#include "analyzers/CopyOverlap.h"
#include "analyzers/GlueOverhead.h"
#include "analyzers/Intervals.h"
#include "analyzers/PerLayerWork.h"
#include "analyzers/RepeatedWork.h"

namespace glueprof {
namespace {

using testing_units::kMs;
using testing_units::kUs;

TEST(IntervalsTest, UnionIntersectionDifferenceAndCoverage) {
    IntervalSet a = unionOf({{5, 10}, {0, 3}, {2, 4}, {10, 12}, {20, 20}});
    ASSERT_EQ(a.size(), 2u);  // [0,4) and [5,12); the empty one is dropped, touching ones merge
    EXPECT_EQ(a[0].end, 4);
    EXPECT_EQ(a[1].start, 5);
    EXPECT_EQ(a[1].end, 12);
    IntervalSet b = unionOf({{3, 6}, {8, 9}});
    EXPECT_EQ(totalLength(intersectionOf(a, b)), 1 + 1 + 1);  // [3,4) [5,6) [8,9)
    EXPECT_EQ(totalLength(differenceOf(a, b)), 3 + 2 + 3);    // [0,3) [6,8) [9,12)
    EXPECT_EQ(coveredLength({2, 9}, a), 2 + 4);               // [2,4) and [5,9)
    EXPECT_EQ(totalLength(clippedTo(a, {3, 6})), 1 + 1);
}

// A short set against a long one that starts long before it (one step's window against a run's
// busy time): the intervals of the long one before the window take no part.
TEST(IntervalsTest, DifferenceOfAWindowFromALongSetStartingEarlier) {
    const IntervalSet busy = unionOf({{0, 10}, {20, 30}, {95, 105}, {150, 160}, {300, 400}});
    const IntervalSet idle = differenceOf(IntervalSet{{100, 200}}, busy);
    ASSERT_EQ(idle.size(), 2u);  // [105, 150) and [160, 200)
    EXPECT_EQ(idle[0].start, 105);
    EXPECT_EQ(idle[0].end, 150);
    EXPECT_EQ(idle[1].start, 160);
    EXPECT_EQ(idle[1].end, 200);
    EXPECT_TRUE(differenceOf(IntervalSet{}, busy).empty());
    EXPECT_EQ(totalLength(differenceOf(IntervalSet{{500, 600}}, busy)), 100);
}

// Copies on lane "copy" against compute (top-level ops) on lane "main", step 1 = [0, 100):
//   main: op [0, 40), op [60, 100) with a wait [80, 100) inside it (blocked, not computing).
//   copy: A [10, 30) fully hidden (ratio 1); B [30, 50) half hidden ([30, 40) under the op);
//         C [85, 95) inside the wait: exposed, pageable host-to-host.
// Totals: copy time 20 + 20 + 10 = 50, covered 20 + 10 + 0 = 30, ratio 0.6, exposed 20.
TraceModel copiesAgainstCompute() {
    TraceModelBuilder b;
    std::size_t main = b.addLane(LaneKind::kHostThread, "main");
    std::size_t copy = b.addLane(LaneKind::kCopyStream, "copy engine");
    b.addStep(StepInfo{1, 0, 100, false, 1, 0.0, 0});
    b.addEvent(main, EventKind::kOp, Category::kMath, "aten::mm", 0, 40, 1);
    b.addEvent(main, EventKind::kOp, Category::kMath, "autograd node", 60, 100, 1);
    b.addEvent(main, EventKind::kWait, Category::kSync, "wait_reload", 80, 100, 1);
    auto addCopy = [&](const char* name, TimestampNs start, TimestampNs end, MemoryKind src,
                       MemoryKind dst) {
        Event& e = b.addEvent(copy, EventKind::kMemcpy, Category::kCopy, name, start, end, 1);
        e.bytes = 1000;
        e.srcKind = src;
        e.dstKind = dst;
    };
    addCopy("offload", 10, 30, MemoryKind::kDevice, MemoryKind::kPinned);
    addCopy("offload", 30, 50, MemoryKind::kDevice, MemoryKind::kPinned);
    addCopy("reload", 85, 95, MemoryKind::kPageable, MemoryKind::kPageable);
    return std::move(b).build();
}

TEST(CopyOverlapTest, HiddenHalfHiddenAndExposedCopies) {
    CopyOverlapResult r = analyzeCopyOverlap(copiesAgainstCompute());
    EXPECT_FALSE(r.computeFromKernels);
    EXPECT_EQ(r.total.copies, 3);
    EXPECT_EQ(r.total.copyNs, 50);
    EXPECT_EQ(r.total.overlappedNs, 30);
    EXPECT_DOUBLE_EQ(r.total.overlapRatio(), 0.6);
    EXPECT_EQ(r.total.exposedNs(), 20);
    EXPECT_DOUBLE_EQ(r.byName.at("offload").overlapRatio(), 30.0 / 40.0);
    EXPECT_DOUBLE_EQ(r.byName.at("reload").overlapRatio(), 0.0);
    EXPECT_EQ(r.byDirection.at("DtoH").copies, 2);
    EXPECT_EQ(r.byDirection.at("HtoH").copyNs, 10);
    EXPECT_EQ(r.byHostMemory.at("pinned").copyNs, 40);
    EXPECT_EQ(r.byHostMemory.at("pageable").copies,
              1);  // counted once although both ends are pageable
    EXPECT_EQ(r.byLane.at("copy engine").copyNs, 50);
    // Bandwidth: 1000 bytes per copy; the HtoH copy takes 10 ns: 100 bytes/ns = 100 GB/s.
    EXPECT_DOUBLE_EQ(r.byDirection.at("HtoH").bandwidthGBps(), 100.0);
    EXPECT_DOUBLE_EQ(CopyTotals{}.bandwidthGBps(), 0.0);
}

// Step 1 = [0, 100) on a CPU trace:
//   main: op math [0, 40) containing a glue range [10, 20) (so [10, 20) is glue, innermost);
//         op math [45, 70) containing a wait [50, 60);
//         optimizer range [85, 95).
//   copy: memcpy [65, 80): [65, 70) is under math, so copy gets [70, 80).
// math = 10 + 20 + 5 + 10 = 45, glue 10, optimizer 10, copy 10, sync_wait 10, idle = 100 - 85 = 15.
TEST(GlueOverheadTest, PartsFollowPriorityAndSumToTheStepWallTime) {
    TraceModelBuilder b;
    std::size_t main = b.addLane(LaneKind::kHostThread, "main");
    std::size_t copy = b.addLane(LaneKind::kCopyStream, "copy engine");
    b.addStep(StepInfo{0, -50, -10, true, 0, 0.0, 0});  // warm-up: not in the result
    b.addStep(StepInfo{1, 0, 100, false, 1, 0.0, 0});
    b.addEvent(main, EventKind::kRange, Category::kPhase, "step", 0, 100, 1);
    b.addEvent(main, EventKind::kOp, Category::kMath, "aten::linear", 0, 40, 1);
    b.addEvent(main, EventKind::kRange, Category::kGlue, "build_packed_mask", 10, 20, 1);
    b.addEvent(main, EventKind::kOp, Category::kMath, "autograd node", 45, 70, 1);
    b.addEvent(main, EventKind::kWait, Category::kSync, "wait_reload", 50, 60, 1);
    b.addEvent(main, EventKind::kRange, Category::kOptimizer, "optimizer", 85, 95, 1);
    b.addEvent(copy, EventKind::kMemcpy, Category::kCopy, "reload", 65, 80, 1);
    GlueOverheadResult r = analyzeGlueOverhead(std::move(b).build());
    ASSERT_EQ(r.steps.size(), 1u);
    const GlueStep& s = r.steps[0];
    EXPECT_EQ(s.part(GluePart::kMath), 45);
    EXPECT_EQ(s.part(GluePart::kGlue), 10);
    EXPECT_EQ(s.part(GluePart::kOptimizer), 10);
    EXPECT_EQ(s.part(GluePart::kCopy), 10);
    EXPECT_EQ(s.part(GluePart::kSyncWait), 10);
    EXPECT_EQ(s.part(GluePart::kIdle), 15);
    TimestampNs sum = 0;
    for (TimestampNs part : s.partNs) sum += part;
    EXPECT_EQ(sum, s.wallNs);
    EXPECT_NEAR(r.medianNonMathShare, 0.55, 1e-12);
}

// A GPU trace: kernels decide, host ops do not. Stream: gemm [0, 50), "elementwise_kernel" [50, 60)
// (glue by name), a cudaStreamSynchronize-like sync record on the host [70, 90).
// math 50, glue 10, sync_wait 20, idle 20.
TEST(GlueOverheadTest, KernelsWithoutCategoryAreClassifiedByName) {
    TraceModelBuilder b;
    std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    std::size_t stream = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addStep(StepInfo{1, 0, 100, false, 1, 0.0, 0});
    b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", 0, 100, 1);  // host: ignored
    b.addEvent(stream, EventKind::kKernel, Category::kNone, "ampere_sgemm_128x64_nn", 0, 50, 1);
    b.addEvent(stream, EventKind::kKernel, Category::kNone, "vectorized_elementwise_kernel", 50, 60,
               1);
    b.addEvent(host, EventKind::kSync, Category::kSync, "cudaStreamSynchronize", 70, 90, 1);
    GlueOverheadResult r = analyzeGlueOverhead(std::move(b).build());
    ASSERT_TRUE(r.fromKernels);
    const GlueStep& s = r.steps.at(0);
    EXPECT_EQ(s.part(GluePart::kMath), 50);
    EXPECT_EQ(s.part(GluePart::kGlue), 10);
    EXPECT_EQ(s.part(GluePart::kSyncWait), 20);
    EXPECT_EQ(s.part(GluePart::kIdle), 20);
    EXPECT_TRUE(isMathKernelName("flash_fwd_kernel"));
    EXPECT_FALSE(isMathKernelName("index_select_kernel"));
}

}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// Step 1 with 2 micro-batches and 3 layers: build_packed_mask runs in every layer of both
// micro-batches (6 runs of 2 ns, each with one would-sync op inside) -> repeated, avoidable 12 x (1
// - 2/6) = 8 ns. A load_batch-like glue range that runs once per micro-batch is not repeated.
TEST(RepeatedWorkTest, PerLayerRebuildsBeyondOncePerMicroBatchAreFound) {
    const auto build = [](RunSummary run) {
        TraceModelBuilder b(run);
        std::size_t main = b.addLane(LaneKind::kHostThread, "main");
        b.addStep(StepInfo{1, 0, 1000, false, 1, 0.0, 0});
        TimestampNs t = 0;
        for (std::int32_t mb = 0; mb < 2; ++mb) {
            b.addEvent(main, EventKind::kRange, Category::kGlue, "prepare", t, t + 5, 1)
                .microbatch = mb;
            t += 10;
            for (std::int32_t layer = 0; layer < 3; ++layer) {
                b.addEvent(main, EventKind::kRange, Category::kGlue, "build_packed_mask", t, t + 2,
                           1, layer)
                    .microbatch = mb;
                b.addEvent(main, EventKind::kOp, Category::kGlue, "aten::item", t, t + 1, 1, layer)
                    .flags = kFlagWouldSync;
                t += 10;
            }
        }
        return std::move(b).build();
    };
    TraceModel trace = build(RunSummary{});
    RepeatedWorkResult r = analyzeRepeatedWork(trace);
    ASSERT_EQ(r.repeated.size(), 1u);
    EXPECT_EQ(r.repeated[0].name, "build_packed_mask");
    EXPECT_EQ(r.repeated[0].ops, "aten::item");
    EXPECT_EQ(r.repeated[0].runsPerStep, 6.0);
    EXPECT_EQ(r.repeated[0].layersPerStep, 3.0);
    EXPECT_EQ(r.repeated[0].microbatchesPerStep, 2.0);
    EXPECT_DOUBLE_EQ(r.repeated[0].avoidableMsPerStep, 8e-6);
    EXPECT_EQ(r.repeated[0].syncOpsPerRun, 1.0);

    CopyOverlapResult noCopies = analyzeCopyOverlap(trace);
    std::vector<Finding> findings = advise(AdvisorInput{&trace, &r, &noCopies});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].toggle, "packed_cache");
    EXPECT_FALSE(findings[0].inUserProgram);
    // "per run" would read as a glueprof run: the count is per call of the range.
    EXPECT_NE(findings[0].evidence.find("(1 sync op(s) in each build_packed_mask)"),
              std::string::npos)
        << findings[0].evidence;

    // The same pattern in a profiled program: the fix is a change to it, the toggle its example.
    RunSummary profiled;
    profiled.preset = "profile";
    const TraceModel program = build(profiled);
    const RepeatedWorkResult rp = analyzeRepeatedWork(program);
    findings = advise(AdvisorInput{&program, &rp, &noCopies});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_TRUE(findings[0].inUserProgram);
    EXPECT_NE(findings[0].fix.find("reference trainer makes as its `packed_cache` toggle"),
              std::string::npos)
        << findings[0].fix;
}

// A CPU trace (no host syncs captured): an optimizer's per-parameter loop issues aten::item 5 times
// per step inside Optimizer.step#AdamW.step (the would-sync op the observer flagged), and a mask
// range issues 8 (the packed rules' own): repeated_would_syncs names the first with the range and
// the fix, not the second. Two a step elsewhere stay below the threshold.
TEST(AdvisorTest, RepeatedWouldSyncOpsOfACpuTraceAreNamedWithTheRangeThatIssuesThem) {
    TraceModelBuilder b;
    const std::size_t main = b.addLane(LaneKind::kHostThread, "main");
    for (std::int32_t step = 1; step <= 2; ++step) {
        const TimestampNs t0 = step * 1000;
        b.addStep(StepInfo{step, t0, t0 + 1000, false, 1, 0.0, 0});
        b.addEvent(main, EventKind::kRange, Category::kOptimizer, "Optimizer.step#AdamW.step", t0,
                   t0 + 500, step);
        for (int i = 0; i < 5; ++i) {
            b.addEvent(main, EventKind::kOp, Category::kOptimizer, "aten::item", t0 + 10 * i,
                       t0 + 10 * i + 4, step)
                .flags = kFlagWouldSync | kFlagHostRead;
        }
        b.addEvent(main, EventKind::kRange, Category::kGlue, "build_packed_mask", t0 + 600,
                   t0 + 700, step);
        for (int i = 0; i < 8; ++i) {
            b.addEvent(main, EventKind::kOp, Category::kGlue, "aten::item", t0 + 600 + 10 * i,
                       t0 + 601 + 10 * i, step)
                .flags = kFlagWouldSync | kFlagHostRead;
        }
        for (int i = 0; i < 2; ++i) {
            b.addEvent(main, EventKind::kOp, Category::kMath, "aten::nonzero", t0 + 800 + 10 * i,
                       t0 + 801 + 10 * i, step)
                .flags = kFlagWouldSync;
        }
    }
    const TraceModel trace = std::move(b).build();
    const SyncPointsResult syncs = analyzeSyncPoints(trace);
    ASSERT_FALSE(syncs.hostSyncsCaptured);
    RepeatedWorkResult none;
    CopyOverlapResult noCopies;
    const std::vector<Finding> findings =
        advise(AdvisorInput{&trace, &none, &noCopies, &syncs, nullptr});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].rule, "repeated_would_syncs");
    EXPECT_EQ(findings[0].toggle, "");
    EXPECT_NE(findings[0].evidence.find("aten::item is issued 5 times per step inside "
                                        "Optimizer.step#AdamW.step"),
              std::string::npos)
        << findings[0].evidence;
    // The optimizer's step counts are CPU tensors: the fix is fused=True (foreach reads them too),
    // and no wait for a GPU is claimed.
    EXPECT_NE(findings[0].fix.find("fused=True"), std::string::npos);
    EXPECT_EQ(findings[0].evidence.find("foreach=True"), std::string::npos);
    EXPECT_EQ(findings[0].evidence.find("waits for the device"), std::string::npos);
    EXPECT_NEAR(findings[0].savingMsPerStep, 20e-6 * (1.0 - 1.0 / 5.0), 1e-12);
}

// An op of a layer: its name and interval from the layer's start.
struct LayerOp {
    const char* name;
    TimestampNs start, end;
};

// Two steps of 10 us, each three layers 1 us apart: a range "nn.Module: Block" of 200 ns around
// `ops`, each tagged with its layer.
void addLayeredSteps(TraceModelBuilder& b, std::size_t lane, const std::vector<LayerOp>& ops) {
    for (std::int32_t step = 1; step <= 2; ++step) {
        const TimestampNs t0 = step * 10000;
        b.addStep(StepInfo{step, t0, t0 + 10000, false, 1, 0.0, 0});
        for (std::int32_t layer = 0; layer < 3; ++layer) {
            const TimestampNs l0 = t0 + layer * 1000;
            b.addEvent(lane, EventKind::kRange, Category::kPhase, "nn.Module: Block", l0, l0 + 200,
                       step)
                .layer = layer;
            for (const LayerOp& op : ops) {
                b.addEvent(lane, EventKind::kOp, Category::kMath, op.name, l0 + op.start,
                           l0 + op.end, step)
                    .layer = layer;
            }
        }
    }
}

// Three layers per step, each a range "nn.Module: Block" around one GEMM, two concatenations and
// a cast that copies (its _to_copy nested inside): the per-layer listing counts each op per layer,
// the glue time counts the outermost non-math ops once, and the advisor names them.
TEST(AdvisorTest, OpsEveryLayerIssuesAreListedPerLayerAndTheirGlueNamedByTheAdvisor) {
    TraceModelBuilder b;
    const std::size_t main = b.addLane(LaneKind::kHostThread, "main");
    addLayeredSteps(b, main,
                    {{"aten::mm", 10, 60},
                     {"aten::cat", 70, 80},
                     {"aten::cat", 90, 100},
                     {"aten::to", 110, 120},
                     {"aten::_to_copy", 111, 119}});
    // Outside the layers: not per-layer work.
    for (std::int32_t step = 1; step <= 2; ++step) {
        b.addEvent(main, EventKind::kOp, Category::kMath, "aten::arange", step * 10000 + 5000,
                   step * 10000 + 5010, step);
    }
    const TraceModel trace = std::move(b).build();
    const PerLayerWorkResult work = analyzePerLayerWork(trace);
    EXPECT_EQ(work.layerRanges, std::vector<std::string>{"nn.Module: Block"});
    EXPECT_EQ(work.layersPerStep, 3.0);
    EXPECT_NEAR(work.glueMsPerStep, 3 * 30e-6, 1e-12);  // 2 cats + 1 cast per layer, no nesting
    EXPECT_NEAR(work.layersMsPerStep, 3 * 200e-6, 1e-12);
    std::map<std::string, PerLayerOp> byName;
    for (const PerLayerOp& op : work.ops) byName[op.op] = op;
    ASSERT_EQ(byName.size(), 4u);  // mm, cat, to, _to_copy; arange is outside any layer
    EXPECT_EQ(byName["aten::cat"].perLayer, 2.0);
    EXPECT_EQ(byName["aten::cat"].perStep, 6.0);
    EXPECT_EQ(byName["aten::cat"].layers, 3.0);
    EXPECT_EQ(byName["aten::cat"].kind, "shape/copy");
    EXPECT_EQ(byName["aten::mm"].kind, "matrix");
    EXPECT_TRUE(byName["aten::mm"].math);

    RepeatedWorkResult none;
    CopyOverlapResult noCopies;
    const std::vector<Finding> findings =
        advise(AdvisorInput{&trace, &none, &noCopies, nullptr, nullptr, &work});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].rule, "per_layer_glue");
    EXPECT_NE(findings[0].evidence.find("each of 3 layers (nn.Module: Block)"), std::string::npos)
        << findings[0].evidence;
    EXPECT_NE(findings[0].evidence.find("aten::cat x2"), std::string::npos) << findings[0].evidence;
    EXPECT_NEAR(findings[0].savingMsPerStep, 3 * 30e-6 * (1.0 - 1.0 / 3.0), 1e-12);
}

// Three layers each with a GEMM, an activation (elementwise, 40 ns) and a concatenation
// (shape/copy, 10 ns): both are glue beside the math, but only the concatenation could move out of
// the layers; the activation is the layer's own arithmetic and adds nothing to the saving.
TEST(AdvisorTest, PerLayerGlueSavesOnlyWhatCouldLeaveTheLayers) {
    TraceModelBuilder b;
    const std::size_t main = b.addLane(LaneKind::kHostThread, "main");
    addLayeredSteps(b, main,
                    {{"aten::mm", 10, 60}, {"aten::silu", 70, 110}, {"aten::cat", 120, 130}});
    const TraceModel trace = std::move(b).build();
    const PerLayerWorkResult work = analyzePerLayerWork(trace);
    EXPECT_NEAR(work.glueMsPerStep, 3 * 50e-6, 1e-12);
    RepeatedWorkResult none;
    CopyOverlapResult noCopies;
    const std::vector<Finding> findings =
        advise(AdvisorInput{&trace, &none, &noCopies, nullptr, nullptr, &work});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NEAR(findings[0].savingMsPerStep, 3 * 10e-6 * (1.0 - 1.0 / 3.0), 1e-12);
    EXPECT_NE(findings[0].evidence.find("elementwise ops aten::silu x1"), std::string::npos)
        << findings[0].evidence;
    EXPECT_NE(findings[0].evidence.find("0.000 ms of it shape/copy"), std::string::npos)
        << findings[0].evidence;
}

// Four pipeline workers over [0, 100): busy 100, 50, 50, 40 (forward/backward ranges). Mean 60,
// max 100: imbalance -> roundpipe, saving 100 x (1 - 60/100) = 40 ns per (one) step.
TEST(AdvisorTest, UnevenPipelineStagesPointToRoundPipe) {
    TraceModelBuilder b;
    b.addStep(StepInfo{1, 0, 100, false, 1, 0.0, 0});
    const TimestampNs busy[] = {100, 50, 50, 40};
    for (int w = 0; w < 4; ++w) {
        std::size_t lane = b.addLane(LaneKind::kPipelineWorker, "worker " + std::to_string(w));
        b.addEvent(lane, EventKind::kRange, Category::kPhase, "forward", 0, busy[w] / 2, 1);
        b.addEvent(lane, EventKind::kRange, Category::kPhase, "backward", busy[w] / 2, busy[w], 1);
    }
    TraceModel trace = std::move(b).build();
    RepeatedWorkResult none;
    CopyOverlapResult noCopies;
    std::vector<Finding> findings = advise(AdvisorInput{&trace, &none, &noCopies});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].rule, "stage_imbalance");
    EXPECT_EQ(findings[0].toggle, "roundpipe");
    EXPECT_NEAR(findings[0].savingMsPerStep, 40e-6, 1e-12);
}

// A rank whose step is 10 ms of math and then 4 blocking all-reduces of 5 ms each: 20 of 30 ms is
// exposed communication, which ddp_overlap targets. With a wait for an asynchronous all-reduce in
// the trace (ddp_overlap already on) the rule stays quiet. The wait's name alone, without a wait
// (an A/B database: the optimized arm's names are in the baseline's string table), does not.
TEST(AdvisorTest, BlockingAllReducesPointToDdpOverlapUnlessTheyAreAlreadyAsynchronous) {
    auto rank = [&](bool asynchronous) {
        TraceModelBuilder b;
        b.intern("wait_all_reduce");  // as the shared string table of an A/B's database holds it
        const std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
        b.addStep(StepInfo{1, 0, 30 * kMs, false, 1, 0.0, 0});
        b.addEvent(lane, EventKind::kOp, Category::kMath, "aten::mm", 0, 10 * kMs, 1);
        for (int i = 0; i < 4; ++i) {
            b.addEvent(lane, EventKind::kRange, Category::kComm, "all_reduce", (10 + 5 * i) * kMs,
                       (15 + 5 * i) * kMs, 1);
        }
        if (asynchronous)
            b.addEvent(lane, EventKind::kWait, Category::kComm, "wait_all_reduce", 29 * kMs,
                       30 * kMs, 1);
        return std::move(b).build();
    };
    for (bool asynchronous : {false, true}) {
        const TraceModel trace = rank(asynchronous);
        const AnalysisResult analysis = analyze(trace);
        ASSERT_EQ(analysis.glue.medianMsPerPart[static_cast<std::size_t>(GluePart::kComm)], 20.0);
        std::vector<std::string> rules;
        for (const Finding& f : analysis.findings) rules.push_back(f.rule);
        if (asynchronous) {
            EXPECT_TRUE(rules.empty());
            continue;
        }
        ASSERT_EQ(rules, std::vector<std::string>{"blocking_all_reduces"});
        EXPECT_EQ(analysis.findings[0].toggle, "ddp_overlap");
        EXPECT_DOUBLE_EQ(analysis.findings[0].savingMsPerStep, 20.0);
    }
}

}  // namespace
}  // namespace glueprof

#include "analyzers/PipelineBubbles.h"

namespace glueprof {
namespace {

// GPipe-like, 4 workers, one micro-batch, unit 10 ns: forward of stage s on worker s at [s, s+1),
// backward (2 units) from the last stage down: worker 3 [4, 6), 2 [6, 8), 1 [8, 10), 0 [10, 12).
// makespan 12, busy 3 per worker, capacity 48 -> bubble 36, ratio 0.75.
// fill = 0+1+2+3 = 6; switch (window from the warm-up forward's end to the first backward) =
// 0+3+6+9 = 18; drain (last backward end to 12) = 0+2+4+6 = 12; intra = 36-6-18-12 = 0.
TEST(PipelineBubblesTest, FourWorkerGanttWithKnownBubbleAndBreakdown) {
    TraceModelBuilder b;
    for (int w = 0; w < 4; ++w) {
        std::size_t lane = b.addLane(LaneKind::kSimulatedWorker, "worker " + std::to_string(w));
        b.addEvent(lane, EventKind::kRange, Category::kPhase, "forward", 10 * w, 10 * (w + 1), 0, w)
            .microbatch = 0;
        const TimestampNs bwd = 10 * (4 + 2 * (3 - w));
        b.addEvent(lane, EventKind::kRange, Category::kPhase, "backward", bwd, bwd + 20, 0, w)
            .microbatch = 0;
    }
    BubbleResult r = analyzeBubbles(std::move(b).build(), /*hasWarmupPhase=*/true);
    EXPECT_EQ(r.workers, 4u);
    EXPECT_EQ(r.makespanNs, 120);
    EXPECT_EQ(r.bubbleNs, 360);
    EXPECT_DOUBLE_EQ(r.ratio, 0.75);
    EXPECT_EQ(r.fillNs, 60);
    EXPECT_EQ(r.switchNs, 180);
    EXPECT_EQ(r.drainNs, 120);
    EXPECT_EQ(r.intraNs, 0);
    EXPECT_DOUBLE_EQ(r.share(r.switchNs), 180.0 / 480.0);
}

TEST(PipelineBubblesTest, TracesWithoutWorkersHaveNoBubbleResult) {
    TraceModelBuilder b;
    std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    b.addEvent(lane, EventKind::kRange, Category::kPhase, "forward", 0, 10, 0);
    EXPECT_EQ(analyzeBubbles(std::move(b).build()).workers, 0u);
}

}  // namespace
}  // namespace glueprof

#include "analyzers/IdleBreakdown.h"
#include "analyzers/LaunchStats.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

// One stream on GPU 0, step 1, in microseconds (HTA's kernel-wait threshold is 30 us):
//   k1 [100, 200) launched [10, 20) (corr 1)
//   k2 [210, 300) launched [50, 60): gap 10 < 30 and launched long before k1 ended -> kernel wait
//   10 k3 [400, 450) launched [350, 360): launch after k2 ended (300)                  -> host wait
//   100 k4 [500, 510) launched [380, 400): gap 50 >= 30, launched before k3 ended        -> other
//   50
// Launch delay = kernel start - launch end: 80, 150, 40, 100 -> median 90 us;
// k4 (10 us) is shorter than its launch (20 us).
TEST(IdleBreakdownTest, GapsAreHostKernelOrOtherWaitAsHtaClassifiesThem) {
    TraceModelBuilder b;
    std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    std::size_t stream = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addStep(StepInfo{1, 0, 1000 * kUs, false, 1, 0.0, 0});
    const TimestampNs kernels[4][4] = {
        {100, 200, 10, 20}, {210, 300, 50, 60}, {400, 450, 350, 360}, {500, 510, 380, 400}};
    for (int k = 0; k < 4; ++k) {
        b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel",
                   kernels[k][2] * kUs, kernels[k][3] * kUs, 1)
            .correlation = k + 1;
        b.addEvent(stream, EventKind::kKernel, Category::kNone, "kernel", kernels[k][0] * kUs,
                   kernels[k][1] * kUs, 1)
            .correlation = k + 1;
    }
    TraceModel trace = std::move(b).build();
    std::vector<StreamIdle> idle = analyzeIdleBreakdown(trace);
    ASSERT_EQ(idle.size(), 1u);
    EXPECT_EQ(idle[0].stream, 7);
    EXPECT_EQ(idle[0].busyNs, (100 + 90 + 50 + 10) * kUs);
    EXPECT_EQ(idle[0].kernelWaitNs, 10 * kUs);
    EXPECT_EQ(idle[0].hostWaitNs, 100 * kUs);
    EXPECT_EQ(idle[0].otherNs, 50 * kUs);
    EXPECT_EQ(idle[0].gaps, 3);
    // The threshold the gaps above were read with: HTA's default, 30 us.
    EXPECT_EQ(kKernelWaitThresholdNs, 30 * kUs);

    LaunchStatsResult launches = analyzeLaunchStats(trace);
    EXPECT_EQ(launches.kernels, 4);
    EXPECT_EQ(launches.pairedWithLaunch, 4);
    EXPECT_DOUBLE_EQ(launches.launchesPerStep, 4.0);
    EXPECT_DOUBLE_EQ(launches.medianLaunchDelayUs, 90.0);
    EXPECT_DOUBLE_EQ(launches.maxLaunchDelayUs, 150.0);
    EXPECT_EQ(launches.shorterThanLaunch, 1);
    // HTA's per-launch figures (one step: every event): calls 10+10+10+20 us, kernels
    // 100+90+50+10 us, delays (device start - call start - call duration) 80, 150, 40, 100.
    const PerLaunchStats& hta = launches.perLaunch;
    EXPECT_EQ(hta.paired, 4);
    EXPECT_EQ(hta.cpuDurationNs, 50 * kUs);
    EXPECT_EQ(hta.gpuDurationNs, 250 * kUs);
    EXPECT_DOUBLE_EQ(hta.launchDelay.p50, 90.0);
    EXPECT_DOUBLE_EQ(hta.launchDelay.max, 150.0);
    EXPECT_EQ(hta.gpuShorterThanCpu, 1);
}

// HTA's selection with two or more steps: device work whose launch is not in the trace is left out;
// with one step all of it counts (as HTA keeps it).
TEST(IdleBreakdownTest, WithTwoStepsOnlyWorkLaunchedByTheLastStepsEndIsBrokenDown) {
    const auto build = [&](int steps) {
        TraceModelBuilder b;
        std::size_t host = b.addLane(LaneKind::kHostThread, "main");
        std::size_t stream = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
        b.addStep(StepInfo{1, 0, 500 * kUs, false, 1, 0.0, 0});
        if (steps == 2) b.addStep(StepInfo{2, 500 * kUs, 1000 * kUs, false, 1, 0.0, 0});
        // Launched in step 1 and in step 2 (or after the one step), then one without a launch.
        b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 10 * kUs,
                   20 * kUs, 1)
            .correlation = 1;
        b.addEvent(host, EventKind::kRuntime, Category::kNone, "cudaLaunchKernel", 600 * kUs,
                   610 * kUs, steps == 2 ? 2 : kNoTag)
            .correlation = 2;
        b.addEvent(stream, EventKind::kKernel, Category::kNone, "k", 100 * kUs, 200 * kUs, 1)
            .correlation = 1;
        b.addEvent(stream, EventKind::kKernel, Category::kNone, "k", 700 * kUs, 800 * kUs, kNoTag)
            .correlation = 2;
        b.addEvent(stream, EventKind::kKernel, Category::kNone, "k", 900 * kUs, 950 * kUs, kNoTag)
            .correlation = 99;  // its launch is not in the trace
        return std::move(b).build();
    };
    const std::vector<StreamIdle> two = analyzeIdleBreakdown(build(2));
    ASSERT_EQ(two.size(), 1u);
    EXPECT_EQ(two[0].busyNs, 200 * kUs);      // k1 and k2; not the kernel without a launch
    EXPECT_EQ(two[0].hostWaitNs, 500 * kUs);  // k2 launched at 600, after k1 ended at 200
    EXPECT_EQ(two[0].gaps, 1);
    const std::vector<StreamIdle> one = analyzeIdleBreakdown(build(1));
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].busyNs, 250 * kUs);  // one step: every kernel
    EXPECT_EQ(one[0].gaps, 2);
    EXPECT_EQ(one[0].otherNs, 100 * kUs);  // 800 -> 900, no launch found: not the host's wait
}

}  // namespace
}  // namespace glueprof
