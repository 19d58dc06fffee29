// The op observer's cost: one optimizer step of a preset with tracing on (ScopedRange + aten op
// observer + background writer) and off (no tracer). Overhead = on / off - 1, printed at the end
// of `make bench` by comparing the two rows.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>

#include "profiler/core/TraceWriter.h"
#include "profiler/host/HostTracer.h"
#include "profiler/torch_ops/OpObserver.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/Trainer.h"

namespace glueprof {
namespace {

void stepTime(benchmark::State& state, const char* preset, bool traced) {
    const auto db = std::filesystem::temp_directory_path() /
                    ("glueprof-bench-overhead-" + std::to_string(getpid()) + ".sqlite");
    std::filesystem::remove(db);
    TraceWriter writer(db.string());
    HostTracer tracer(writer);
    tracer.setRun(writer.beginRun(RunInfo{}));
    std::unique_ptr<OpObserver> observer;
    if (traced) observer = std::make_unique<OpObserver>(tracer);
    Trainer trainer(presetConfig(preset), traced ? &tracer : nullptr);
    std::int32_t step = 0;
    trainer.step(step++);  // warm-up: allocator and caches
    for (auto _ : state) trainer.step(step++);
    observer.reset();
    writer.close();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
}

void BM_StepTinyTracingOff(benchmark::State& s) { stepTime(s, "tiny", false); }
void BM_StepTinyTracingOn(benchmark::State& s) { stepTime(s, "tiny", true); }
void BM_StepSmallTracingOff(benchmark::State& s) { stepTime(s, "small", false); }
void BM_StepSmallTracingOn(benchmark::State& s) { stepTime(s, "small", true); }

BENCHMARK(BM_StepTinyTracingOff)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(30)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_StepTinyTracingOn)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(30)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_StepSmallTracingOff)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(6)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_StepSmallTracingOn)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(6)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace glueprof
