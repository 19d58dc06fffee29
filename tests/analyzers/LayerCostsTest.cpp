#include <gtest/gtest.h>

#include <vector>

#include "analyzers/LayerCosts.h"
#include "profiler/core/TraceNames.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

using testing_units::kMs;

// One micro-batch of a 2-layer checkpointed model, in ms, as the trainer's host lane records it.
struct Microbatch {
    TimestampNs forward[2];    // the layers' `layer` ranges in the forward pass
    TimestampNs headForward;   // the rest of `forward` (embedding, final norm, LM head, loss)
    TimestampNs recompute[2];  // 0: the layer is not checkpointed (no `recompute` range)
    TimestampNs backward[2];   // `layer_backward`
    TimestampNs headBackward;  // the rest of `backward`
};

// Lays MB out on LANE from T ms: `forward` [T, T + f0 + f1 + headForward] holds 1 ms of embedding,
// layer 0, layer 1 and the rest of the head; `backward` follows at once and holds 1 ms of the head,
// then from the top layer down its `recompute` (with the layer's forward inside it, which is no
// forward of its own) and its `layer_backward`, and the rest of the head. Returns where it ends.
TimestampNs addMicrobatch(TraceModelBuilder& b, std::size_t lane, std::int32_t step, TimestampNs t,
                          const Microbatch& mb) {
    auto range = [&](const char* name, TimestampNs start, TimestampNs end, std::int32_t layer) {
        b.addEvent(lane, EventKind::kRange, Category::kPhase, name, start * kMs, end * kMs, step,
                   layer);
    };
    const TimestampNs forwardEnd = t + mb.forward[0] + mb.forward[1] + mb.headForward;
    range(names::kForward, t, forwardEnd, kNoTag);
    range(names::kLayer, t + 1, t + 1 + mb.forward[0], 0);
    range(names::kLayer, t + 1 + mb.forward[0], t + 1 + mb.forward[0] + mb.forward[1], 1);
    TimestampNs u = forwardEnd + 1;
    for (std::int32_t layer : {1, 0}) {
        const TimestampNs r = mb.recompute[layer];
        if (r > 0) {
            range(names::kRecompute, u, u + r, layer);
            b.addEvent(lane, EventKind::kRange, Category::kPhase, names::kLayer, u * kMs + kMs / 4,
                       (u + r) * kMs - kMs / 4, step, layer);
            u += r;
        }
        range(names::kLayerBackward, u, u + mb.backward[layer], layer);
        u += mb.backward[layer];
    }
    const TimestampNs backwardEnd = forwardEnd + mb.recompute[0] + mb.recompute[1] +
                                    mb.backward[0] + mb.backward[1] + mb.headBackward;
    range(names::kBackward, forwardEnd, backwardEnd, kNoTag);
    return backwardEnd;
}

// Step 0 is warm-up (every cost 50 ms: ignored). Step 1 has one micro-batch, step 2 two:
//              f0  f1  headF  r0  r1  b0  b1  headB
//   step 1 mb0 10  12    8    11  13  14  16    6
//   step 2 mb0 20  14    4    21  15  24  18    2
//   step 2 mb1 12  16    6    13  17  16  20    4
// Medians of three: forward (12, 14), recompute (13, 15), backward (16, 18), head forward 6 (a
// micro-batch's forward less its layers: 30-22, 38-34, 34-28), head backward 4 (its backward less
// its recomputes and layer backwards). The layer ranges inside the recomputes are not forwards,
// and a pipeline worker's `layer` range (1000 ms) is not the host's.
TEST(LayerCostsTest, EachCostIsTheMedianOverTheMeasuredMicrobatches) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    const std::size_t worker = b.addLane(LaneKind::kPipelineWorker, "pipeline worker 0");
    b.addStep(StepInfo{0, 0, 1000 * kMs, true, 0, 3.0, 0});
    b.addStep(StepInfo{1, 1000 * kMs, 2000 * kMs, false, 1, 2.0, 0});
    b.addStep(StepInfo{2, 2000 * kMs, 3000 * kMs, false, 1, 1.5, 0});
    addMicrobatch(b, host, 0, 0, {{50, 50}, 50, {50, 50}, {50, 50}, 50});
    addMicrobatch(b, host, 1, 1000, {{10, 12}, 8, {11, 13}, {14, 16}, 6});
    const TimestampNs end = addMicrobatch(b, host, 2, 2000, {{20, 14}, 4, {21, 15}, {24, 18}, 2});
    addMicrobatch(b, host, 2, end + 5, {{12, 16}, 6, {13, 17}, {16, 20}, 4});
    b.addEvent(worker, EventKind::kRange, Category::kPhase, names::kLayer, 1000 * kMs, 2000 * kMs,
               1, 0);
    const LayerCostsResult r = measureLayerCosts(std::move(b).build());
    ASSERT_TRUE(r.complete());
    EXPECT_EQ(r.microbatchesMeasured, 3u);
    EXPECT_EQ(r.forwardMs, (std::vector<double>{12.0, 14.0}));
    EXPECT_EQ(r.recomputeMs, (std::vector<double>{13.0, 15.0}));
    EXPECT_EQ(r.backwardMs, (std::vector<double>{16.0, 18.0}));
    EXPECT_DOUBLE_EQ(r.headForwardMs, 6.0);
    EXPECT_DOUBLE_EQ(r.headBackwardMs, 4.0);
}

// Without checkpointing (no `recompute` ranges) a layer's recompute is taken as its forward. One
// micro-batch: forward (5, 7), head forward 3; backward (9, 11), head backward 2.
TEST(LayerCostsTest, ALayerWithoutRecomputeTakesItsForwardAsItsRecompute) {
    TraceModelBuilder b;
    const std::size_t host = b.addLane(LaneKind::kHostThread, "main");
    b.addStep(StepInfo{1, 0, 100 * kMs, false, 1, 2.0, 0});
    addMicrobatch(b, host, 1, 0, {{5, 7}, 3, {0, 0}, {9, 11}, 2});
    const LayerCostsResult r = measureLayerCosts(std::move(b).build());
    ASSERT_TRUE(r.complete());
    EXPECT_EQ(r.microbatchesMeasured, 1u);
    EXPECT_EQ(r.forwardMs, (std::vector<double>{5.0, 7.0}));
    EXPECT_EQ(r.recomputeMs, (std::vector<double>{5.0, 7.0}));
    EXPECT_EQ(r.backwardMs, (std::vector<double>{9.0, 11.0}));
    EXPECT_DOUBLE_EQ(r.headForwardMs, 3.0);
    EXPECT_DOUBLE_EQ(r.headBackwardMs, 2.0);
}

// A run without `layer` ranges (an imported trace), or whose layers ran only in warm-up, has no
// costs to give: the result says it is incomplete rather than giving zeros.
TEST(LayerCostsTest, ATraceWithoutMeasuredLayerRangesIsIncomplete) {
    TraceModelBuilder phasesOnly;
    const std::size_t host = phasesOnly.addLane(LaneKind::kHostThread, "main");
    phasesOnly.addStep(StepInfo{1, 0, 100 * kMs, false, 1, 2.0, 0});
    phasesOnly.addEvent(host, EventKind::kRange, Category::kPhase, names::kForward, 0, 30 * kMs, 1);
    phasesOnly.addEvent(host, EventKind::kRange, Category::kPhase, names::kBackward, 30 * kMs,
                        80 * kMs, 1);
    const LayerCostsResult none = measureLayerCosts(std::move(phasesOnly).build());
    EXPECT_FALSE(none.complete());
    EXPECT_TRUE(none.forwardMs.empty());

    TraceModelBuilder warmupOnly;
    const std::size_t lane = warmupOnly.addLane(LaneKind::kHostThread, "main");
    warmupOnly.addStep(StepInfo{0, 0, 1000 * kMs, true, 0, 3.0, 0});
    addMicrobatch(warmupOnly, lane, 0, 0, {{5, 7}, 3, {5, 7}, {9, 11}, 2});
    EXPECT_FALSE(measureLayerCosts(std::move(warmupOnly).build()).complete());
}

}  // namespace
}  // namespace glueprof
