// Timeline preparation per frame (issue 5's target: <= 4 ms for 10 million events at 1600 px): the
// visible items of a 10M-event lane set, zoomed out (everything visible) and zoomed into one step.
#include <benchmark/benchmark.h>

#include "app/gui/widgets/TimelineLod.h"

namespace glueprof::gui {
namespace {

// A host lane with step > layer > op nesting and a stream lane of kernels: 10M events.
const TimelineIndex& index10M() {
    static const TimelineIndex index = [] {
        TraceModelBuilder b;
        std::size_t host = b.addLane(LaneKind::kHostThread, "host", -1, 1);
        std::size_t stream = b.addLane(LaneKind::kCudaStream, "stream", 0, 7);
        TimestampNs t = 0;
        for (int step = 0; step < 20; ++step) {
            const TimestampNs stepStart = t;
            b.addEvent(host, EventKind::kRange, Category::kPhase, "step", stepStart,
                       stepStart + 50'000'000, step);
            for (int layer = 0; layer < 50; ++layer) {
                const TimestampNs layerStart = stepStart + layer * 1'000'000;
                b.addEvent(host, EventKind::kRange, Category::kPhase, "layer", layerStart,
                           layerStart + 1'000'000, step, layer);
                for (int op = 0; op < 4'999; ++op) {
                    const TimestampNs s = layerStart + op * 200;
                    if (op % 2 == 0) {
                        b.addEvent(host, EventKind::kOp, Category::kMath, "aten::mm", s, s + 150,
                                   step, layer);
                    } else {
                        b.addEvent(stream, EventKind::kKernel, Category::kMath, "gemm", s, s + 180,
                                   step, layer);
                    }
                }
            }
            t += 50'000'000;
        }
        return buildTimelineIndex(std::move(b).build());
    }();
    return index;
}

void BM_TimelineFrameAllVisible(benchmark::State& state) {
    const TimelineIndex& index = index10M();
    std::vector<DrawItem> items;
    for (auto _ : state) {
        visibleItems(index, index.first, index.last, 1600.0F, 3.0F, items);
        benchmark::DoNotOptimize(items.data());
    }
    state.counters["items"] = static_cast<double>(items.size());
}
BENCHMARK(BM_TimelineFrameAllVisible)->Unit(benchmark::kMillisecond);

void BM_TimelineFrameOneLayer(benchmark::State& state) {
    const TimelineIndex& index = index10M();
    std::vector<DrawItem> items;
    for (auto _ : state) {
        visibleItems(index, 500'000'000, 501'000'000, 1600.0F, 3.0F, items);
        benchmark::DoNotOptimize(items.data());
    }
    state.counters["items"] = static_cast<double>(items.size());
}
BENCHMARK(BM_TimelineFrameOneLayer)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace glueprof::gui
