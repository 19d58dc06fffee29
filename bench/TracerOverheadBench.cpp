// The op observer's cost: one optimizer step of a preset with tracing on (ScopedRange + aten op
// observer + background writer) and off (no tracer). Overhead = on / off - 1, printed at the end
// of `make bench` by comparing the two rows.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <torch/csrc/autograd/profiler_kineto.h>

#include <chrono>
#include <filesystem>
#include <set>

#include "profiler/core/Clock.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/host/HostTracer.h"
#include "profiler/torch_ops/OpObserver.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/Trainer.h"

namespace glueprof {
namespace {

// libtorch's RecordFunction with a callback that does nothing, registered with the op observer's
// options (ids, the same scopes): the floor any RecordFunction observer pays, libtorch's profiler
// included. Alive while the object is.
class EmptyRecordFunctionCallback {
  public:
    EmptyRecordFunctionCallback()
        : m_handle(at::addGlobalCallback(
              at::RecordFunctionCallback(
                  [](const at::RecordFunction&) -> std::unique_ptr<at::ObserverContext> {
                      return nullptr;
                  },
                  [](const at::RecordFunction&, at::ObserverContext*) {})
                  .needsIds(true)
                  .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}))) {}
    ~EmptyRecordFunctionCallback() { at::removeCallback(m_handle); }
    EmptyRecordFunctionCallback(const EmptyRecordFunctionCallback&) = delete;
    EmptyRecordFunctionCallback& operator=(const EmptyRecordFunctionCallback&) = delete;

  private:
    at::CallbackHandle m_handle;
};

// Starts libtorch's own profiler as torch.profiler does (prepare, then enable): Kineto with CPU
// activities, every aten op and autograd node. False (the benchmark skipped with libtorch's
// error) where this libtorch refuses.
bool startLibtorchProfiler(benchmark::State& state) {
    namespace prof = torch::autograd::profiler;
    using torch::profiler::impl::ActivityType;
    using torch::profiler::impl::ProfilerConfig;
    using torch::profiler::impl::ProfilerState;
    const ProfilerConfig config(ProfilerState::KINETO);
    const std::set<ActivityType> activities = {ActivityType::CPU};
    try {
        prof::prepareProfiler(config, activities);
        prof::enableProfiler(config, activities,
                             {at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION});
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return false;
    }
    return true;
}

// Tracing: off; RecordFunction alone (EmptyRecordFunctionCallback); the op observer's callbacks
// with no run to record into (everything but the event's hand-off to the writer); on.
enum class Tracing { kOff, kRecordFunctionOnly, kCallbackOnly, kOn };

// writerNice: the writer thread's nice value (-1: the default, GLUEPROF_WRITER_NICE or 19).
void stepTime(benchmark::State& state, const char* preset, Tracing tracing, int writerNice = -1) {
    const auto db = std::filesystem::temp_directory_path() /
                    ("glueprof-bench-overhead-" + std::to_string(getpid()) + ".sqlite");
    std::filesystem::remove(db);
    WriterOptions options;
    if (writerNice >= 0) options.writerNice = writerNice;
    TraceWriter writer(db.string(), options);
    HostTracer tracer(writer);
    const bool traced = tracing == Tracing::kOn;
    if (traced) tracer.setRun(writer.beginRun(RunInfo{}));
    std::unique_ptr<OpObserver> observer;
    if (tracing == Tracing::kCallbackOnly || tracing == Tracing::kOn)
        observer = std::make_unique<OpObserver>(tracer);
    std::unique_ptr<EmptyRecordFunctionCallback> emptyCallback;
    if (tracing == Tracing::kRecordFunctionOnly)
        emptyCallback = std::make_unique<EmptyRecordFunctionCallback>();
    Trainer trainer(presetConfig(preset), traced ? &tracer : nullptr);
    std::int32_t step = 0;
    trainer.step(step++);  // warm-up: allocator and caches
    for (auto _ : state) trainer.step(step++);
    observer.reset();
    writer.close();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
}

// The clock every event reads twice: Clock::nowNs (the steady clock through the time-stamp counter
// where the CPU has an invariant one) beside clock_gettime itself, in the same process.
void BM_ClockNowNs(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(Clock::nowNs());
    state.SetLabel(Clock::readsTimeStampCounter() ? "time-stamp counter" : "clock_gettime");
}
void BM_ClockSteadyNs(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(Clock::steadyNs());
}
BENCHMARK(BM_ClockNowNs)->Repetitions(5);
BENCHMARK(BM_ClockSteadyNs)->Repetitions(5);

// One observed op, the unit of the tracer's cost: at::add of two 1-element tensors (about a
// microsecond of libtorch dispatch) 1000 times per iteration, so the time per iteration in us is
// the time per op in ns. Modes: no observer; RecordFunction with an empty callback (the floor);
// the observer's callback active but no run (it records nothing); recording into a writer whose
// drain is held back (the trainer thread's cost alone); recording and writing (the background
// writer commits as in a real run); libtorch's own profiler. The added cost per op is a mode's time
// minus the first's. Twenty repetitions each, which `make bench` interleaves at random so that the
// machine's drift hits every mode alike.
enum class Observed {
    kNone,
    kRecordFunctionOnly,
    kCallbackOnly,
    kRecord,
    kRecordAndWrite,
    kLibtorchProfiler
};

void observedOp(benchmark::State& state, Observed mode) {
    const auto db = std::filesystem::temp_directory_path() /
                    ("glueprof-bench-op-" + std::to_string(getpid()) + ".sqlite");
    std::filesystem::remove(db);
    WriterOptions options;
    if (mode == Observed::kRecord) options.drainIntervalMs = 1 << 30;  // nothing drains meanwhile
    TraceWriter writer(db.string(), options);
    HostTracer tracer(writer);
    if (mode == Observed::kRecord || mode == Observed::kRecordAndWrite) {
        tracer.setRun(writer.beginRun(RunInfo{}));
    }
    std::unique_ptr<OpObserver> observer;
    if (mode != Observed::kNone && mode != Observed::kRecordFunctionOnly)
        observer = std::make_unique<OpObserver>(tracer);
    std::unique_ptr<EmptyRecordFunctionCallback> emptyCallback;
    if (mode == Observed::kRecordFunctionOnly)
        emptyCallback = std::make_unique<EmptyRecordFunctionCallback>();
    const at::Tensor a = at::ones({1});
    const at::Tensor b = at::ones({1});
    if (mode == Observed::kLibtorchProfiler && !startLibtorchProfiler(state)) return;
    constexpr int kOpsPerIteration = 1000;
    for (auto _ : state) {
        for (int i = 0; i < kOpsPerIteration; ++i) benchmark::DoNotOptimize(at::add(a, b));
    }
    state.SetItemsProcessed(state.iterations() * kOpsPerIteration);
    if (mode == Observed::kLibtorchProfiler) torch::autograd::profiler::disableProfiler();
    observer.reset();
    writer.close();
    state.counters["events/op"] = static_cast<double>(writer.stats().eventsWritten) /
                                  static_cast<double>(state.iterations() * kOpsPerIteration);
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
}

void BM_ObservedOpNoObserver(benchmark::State& s) { observedOp(s, Observed::kNone); }
void BM_ObservedOpRecordFunctionOnly(benchmark::State& s) {
    observedOp(s, Observed::kRecordFunctionOnly);
}
void BM_ObservedOpCallbackOnly(benchmark::State& s) { observedOp(s, Observed::kCallbackOnly); }
void BM_ObservedOpRecord(benchmark::State& s) { observedOp(s, Observed::kRecord); }
void BM_ObservedOpRecordAndWrite(benchmark::State& s) { observedOp(s, Observed::kRecordAndWrite); }
void BM_ObservedOpLibtorchProfiler(benchmark::State& s) {
    observedOp(s, Observed::kLibtorchProfiler);
}
// Twenty repetitions of each mode, reported as aggregates (make bench interleaves them).
void observedOpSettings(benchmark::internal::Benchmark* b) {
    b->Unit(benchmark::kMicrosecond)->Repetitions(20)->ReportAggregatesOnly(true);
}
BENCHMARK(BM_ObservedOpNoObserver)->Apply(observedOpSettings);
BENCHMARK(BM_ObservedOpRecordFunctionOnly)->Apply(observedOpSettings);
BENCHMARK(BM_ObservedOpCallbackOnly)->Apply(observedOpSettings);
BENCHMARK(BM_ObservedOpRecord)->Apply(observedOpSettings);
BENCHMARK(BM_ObservedOpRecordAndWrite)->Apply(observedOpSettings);
BENCHMARK(BM_ObservedOpLibtorchProfiler)->Apply(observedOpSettings);

// The peer: libtorch's own profiler on the same steps, from C++, recording every aten op and
// autograd node with its name and timestamps as glueprof does (startLibtorchProfiler). Its events
// are collected in memory and post-processed when it stops, outside the timed steps; "events/step"
// counts them.
void stepTimeLibtorchProfiler(benchmark::State& state, const char* preset) {
    namespace prof = torch::autograd::profiler;
    Trainer trainer(presetConfig(preset), nullptr);
    std::int32_t step = 0;
    trainer.step(step++);  // warm-up: allocator and caches
    if (!startLibtorchProfiler(state)) return;
    for (auto _ : state) trainer.step(step++);
    const auto stopped = std::chrono::steady_clock::now();
    const std::unique_ptr<prof::ProfilerResult> result = prof::disableProfiler();
    state.counters["events/step"] =
        static_cast<double>(result->events().size()) / static_cast<double>(state.iterations());
    state.counters["stop_ms"] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - stopped)
            .count();
}

void BM_StepTinyTracingOff(benchmark::State& s) { stepTime(s, "tiny", Tracing::kOff); }
void BM_StepTinyRecordFunctionOnly(benchmark::State& s) {
    stepTime(s, "tiny", Tracing::kRecordFunctionOnly);
}
void BM_StepTinyCallbackOnly(benchmark::State& s) { stepTime(s, "tiny", Tracing::kCallbackOnly); }
void BM_StepTinyTracingOn(benchmark::State& s) { stepTime(s, "tiny", Tracing::kOn); }
// The writer at nice 5 (the default before 19): what a larger share of the cores for the writer
// costs the step, beside the default's.
void BM_StepTinyTracingOnWriterNice5(benchmark::State& s) { stepTime(s, "tiny", Tracing::kOn, 5); }
void BM_StepTinyLibtorchProfiler(benchmark::State& s) { stepTimeLibtorchProfiler(s, "tiny"); }
void BM_StepSmallTracingOff(benchmark::State& s) { stepTime(s, "small", Tracing::kOff); }
void BM_StepSmallTracingOn(benchmark::State& s) { stepTime(s, "small", Tracing::kOn); }
void BM_StepSmallLibtorchProfiler(benchmark::State& s) { stepTimeLibtorchProfiler(s, "small"); }

// Steps per repetition: 30 of the tiny preset, 6 of the small one; three repetitions each.
void tinyStepSettings(benchmark::internal::Benchmark* b) {
    b->Unit(benchmark::kMillisecond)->Iterations(30)->Repetitions(3)->ReportAggregatesOnly(true);
}
void smallStepSettings(benchmark::internal::Benchmark* b) {
    b->Unit(benchmark::kMillisecond)->Iterations(6)->Repetitions(3)->ReportAggregatesOnly(true);
}
BENCHMARK(BM_StepTinyTracingOff)->Apply(tinyStepSettings);
BENCHMARK(BM_StepTinyRecordFunctionOnly)->Apply(tinyStepSettings);
BENCHMARK(BM_StepTinyCallbackOnly)->Apply(tinyStepSettings);
BENCHMARK(BM_StepTinyTracingOn)->Apply(tinyStepSettings);
BENCHMARK(BM_StepTinyTracingOnWriterNice5)->Apply(tinyStepSettings);
BENCHMARK(BM_StepTinyLibtorchProfiler)->Apply(tinyStepSettings);
BENCHMARK(BM_StepSmallTracingOff)->Apply(smallStepSettings);
BENCHMARK(BM_StepSmallTracingOn)->Apply(smallStepSettings);
BENCHMARK(BM_StepSmallLibtorchProfiler)->Apply(smallStepSettings);

}  // namespace
}  // namespace glueprof
