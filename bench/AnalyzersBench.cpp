// The analyzers and the report at scale: a synthetic run shaped like a real GPU step (a host thread
// with nested step / layer / glue ranges and ops, launches on it, kernels and copies on two device
// streams), 10 million events. Targets (issue 4): every analyzer together <= 3 s on one core, and
// the report of such a run (load from SQLite + analyze + render HTML) <= 10 s.
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <cstdlib>

#include <filesystem>

#include "analyzers/Analysis.h"
#include "app/report/HtmlReport.h"
#include "app/report/Results.h"
#include "app/report/ResultsJson.h"
#include "app/report/ResultsMarkdown.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceWriter.h"

namespace glueprof {
namespace {

// Per group of 10 events: on the host a layer range holding a glue range with an op and a sync op,
// a math op and a launch; on the stream its kernel and a glue kernel; a copy on the copy stream.
struct SyntheticShape {
    std::int64_t events = 10'000'000;
    std::int64_t stepsCount = 50;
};

template <typename Emit>
void generate(const SyntheticShape& shape, Emit&& emit, std::vector<StepInfo>& steps) {
    const std::int64_t groups = shape.events / 10;
    const std::int64_t perStep = groups / shape.stepsCount;
    TimestampNs t = 0;
    std::int64_t correlation = 1;
    for (std::int64_t g = 0; g < groups; ++g) {
        const auto step = static_cast<std::int32_t>(g / perStep);
        const auto layer = static_cast<std::int32_t>(g % 32);
        if (g % perStep == 0)
            steps.push_back(StepInfo{step, t, t + perStep * 1000, step == 0, 1, 1.0, 2048});
        // host lane 0
        emit(0, EventKind::kRange, Category::kPhase, 0, t, t + 900, step, layer, 0, 0u);  // layer
        emit(0, EventKind::kRange, Category::kGlue, 1, t + 10, t + 200, step, layer, 0,
             0u);  // glue range
        emit(0, EventKind::kOp, Category::kGlue, 2, t + 20, t + 80, step, layer, 0, 0u);  // op
        emit(0, EventKind::kOp, Category::kGlue, 3, t + 100, t + 150, step, layer, 0,
             kFlagWouldSync);
        emit(0, EventKind::kOp, Category::kMath, 4, t + 300, t + 700, step, layer, 0, 0u);  // mm
        emit(0, EventKind::kRuntime, Category::kNone, 5, t + 310, t + 330, step, layer, correlation,
             0u);
        // stream lane 1: the launched GEMM and a glue kernel; copy lane 2: a copy
        emit(1, EventKind::kKernel, Category::kNone, 6, t + 400, t + 800, step, layer, correlation,
             0u);
        emit(1, EventKind::kKernel, Category::kNone, 7, t + 820, t + 860, step, layer, 0, 0u);
        emit(2, EventKind::kMemcpy, Category::kCopy, 8, t + 500, t + 950, step, layer, 0, 0u);
        emit(0, EventKind::kWait, Category::kSync, 9, t + 910, t + 990, step, layer, 0, 0u);
        ++correlation;
        t += 1000;
    }
}

const char* const kNames[] = {
    "layer",    "build_packed_mask", "aten::cumsum",           "aten::item",
    "aten::mm", "cudaLaunchKernel",  "ampere_sgemm_128x64_nn", "vectorized_elementwise_kernel",
    "reload",   "wait_reload"};

TraceModel syntheticModel(const SyntheticShape& shape) {
    TraceModelBuilder b;
    b.addLane(LaneKind::kHostThread, "host", -1, 1);
    b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    b.addLane(LaneKind::kCopyStream, "copy stream 9", 0, 9);
    std::vector<StepInfo> steps;
    generate(
        shape,
        [&](std::size_t lane, EventKind kind, Category category, int name, TimestampNs start,
            TimestampNs end, std::int32_t step, std::int32_t layer, std::int64_t correlation,
            std::uint32_t flags) {
            Event& e = b.addEvent(lane, kind, category, kNames[name], start, end, step, layer);
            e.correlation = correlation;
            e.flags = flags;
            if (kind == EventKind::kMemcpy) {
                e.bytes = 1 << 20;
                e.srcKind = MemoryKind::kPinned;
                e.dstKind = MemoryKind::kDevice;
            }
        },
        steps);
    for (const StepInfo& s : steps) b.addStep(s);
    return std::move(b).build();
}

void BM_AllAnalyzers10M(benchmark::State& state) {
    const TraceModel model = syntheticModel(SyntheticShape{});
    for (auto _ : state) {
        AnalysisResult result = analyze(model);
        benchmark::DoNotOptimize(result.glue.steps.data());
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(model.eventCount()));
}
BENCHMARK(BM_AllAnalyzers10M)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();

// Each analyzer alone on the same 10M-event model, to see where the facade's time goes.
const TraceModel& sharedModel() {
    static const TraceModel model = syntheticModel(SyntheticShape{});
    return model;
}
#define GLUEPROF_ANALYZER_BENCH(NAME, CALL)            \
    void BM_Analyzer_##NAME(benchmark::State& state) { \
        const TraceModel& model = sharedModel();       \
        for (auto _ : state) {                         \
            auto result = CALL;                        \
            benchmark::DoNotOptimize(&result);         \
        }                                              \
    }                                                  \
    BENCHMARK(BM_Analyzer_##NAME)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
GLUEPROF_ANALYZER_BENCH(StepBreakdown, analyzeStepBreakdown(model))
GLUEPROF_ANALYZER_BENCH(SyncPoints, analyzeSyncPoints(model))
GLUEPROF_ANALYZER_BENCH(CopyOverlap, analyzeCopyOverlap(model))
GLUEPROF_ANALYZER_BENCH(GlueOverhead, analyzeGlueOverhead(model))
GLUEPROF_ANALYZER_BENCH(RepeatedWork, analyzeRepeatedWork(model))
GLUEPROF_ANALYZER_BENCH(IdleBreakdown, analyzeIdleBreakdown(model))
GLUEPROF_ANALYZER_BENCH(LaunchStats, analyzeLaunchStats(model))
GLUEPROF_ANALYZER_BENCH(Bubbles, analyzeBubbles(model))
GLUEPROF_ANALYZER_BENCH(StepAttribution, attributeSteps(model))
GLUEPROF_ANALYZER_BENCH(HostStepAttribution, attributeHostSteps(model, 300.0))
GLUEPROF_ANALYZER_BENCH(HostCoverage, hostCoverageOf(model))
#undef GLUEPROF_ANALYZER_BENCH

void BM_HtmlReportOf10MEventRun(benchmark::State& state) {
    // GLUEPROF_BENCH_KEEP_DB=PATH keeps the database (bench/gui_frame_time.sh opens it in the real
    // app).
    const char* keep = std::getenv("GLUEPROF_BENCH_KEEP_DB");
    const auto db = keep != nullptr
                        ? std::filesystem::path(keep)
                        : std::filesystem::temp_directory_path() /
                              ("glueprof-bench-report-" + std::to_string(getpid()) + ".sqlite");
    std::filesystem::remove(db);
    RunId run = 0;
    {
        TraceWriter writer(db.string());
        run = writer.beginRun(RunInfo{});
        const LaneId lanes[] = {writer.addLane(run, LaneKind::kHostThread, "host", -1, 1),
                                writer.addLane(run, LaneKind::kCudaStream, "stream 7", 0, 7),
                                writer.addLane(run, LaneKind::kCopyStream, "copy stream 9", 0, 9)};
        StringId names[10];
        for (int i = 0; i < 10; ++i) names[i] = writer.intern(kNames[i]);
        std::vector<StepInfo> steps;
        std::int64_t written = 0;
        generate(
            SyntheticShape{},
            [&](std::size_t lane, EventKind kind, Category category, int name, TimestampNs start,
                TimestampNs end, std::int32_t step, std::int32_t layer, std::int64_t correlation,
                std::uint32_t flags) {
                Event e = makeEvent(run, lanes[lane], kind, names[name], start, end);
                e.category = category;
                e.step = step;
                e.layer = layer;
                e.correlation = correlation;
                e.flags = flags;
                writer.record(e);
                if (++written % 1'000'000 == 0)
                    writer.flush();  // stay under the queue limit: no drops
            },
            steps);
        for (const StepInfo& s : steps) writer.recordStep(StepRecord{run, s});
        writer.endRun(run, RunStatus::kComplete);
        writer.close();
    }
    for (auto _ : state) {
        TraceModel model = TraceReader(db.string()).loadRun(run);
        std::string html = renderResultsHtml(buildResults({&model}));
        benchmark::DoNotOptimize(html.data());
        state.counters["events"] = static_cast<double>(model.eventCount());
    }
    if (keep == nullptr) {
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(db.string() + suffix);
    }
}
BENCHMARK(BM_HtmlReportOf10MEventRun)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

}  // namespace
}  // namespace glueprof
