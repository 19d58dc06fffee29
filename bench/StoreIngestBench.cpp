// Store ingest rate: events recorded from one thread and committed by the background writer
// (BM_StoreIngest), and a run appended in bulk through TraceStore's door (BM_StoreBulkAppend: an
// import, a rank merge, ab --exec's copies). Items/s is events/s until every event is on disk in
// SQLite; writer_events_per_cpu_s is the writer thread's rate per second of its own CPU time (one
// core); transactions is how many batches the bulk append committed (the write lock held per
// batch).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>

#include "profiler/core/TraceStore.h"
#include "profiler/core/TraceWriter.h"

namespace glueprof {
namespace {

void BM_StoreIngest(benchmark::State& state) {
    const auto events = static_cast<std::int64_t>(state.range(0));
    const auto db = std::filesystem::temp_directory_path() /
                    ("glueprof-bench-ingest-" + std::to_string(getpid()) + ".sqlite");
    std::int64_t writtenEvents = 0;
    std::int64_t writerCpuNs = 0;
    for (auto _ : state) {
        state.PauseTiming();
        std::filesystem::remove(db);
        WriterOptions options;
        options.writerNice = 0;  // the writer's own rate, not how it shares the cores
        auto writer = std::make_unique<TraceWriter>(db.string(), options);
        RunId run = writer->beginRun(RunInfo{});
        LaneId lane = writer->addLane(run, LaneKind::kHostThread, "bench", -1, 1);
        StringId name = writer->intern("aten::mm");
        writer->flush();
        state.ResumeTiming();
        Event e;
        e.run = run;
        e.lane = lane;
        e.kind = EventKind::kOp;
        e.name = name;
        for (std::int64_t i = 0; i < events; ++i) {
            e.startNs = i * 10;
            e.endNs = e.startNs + 5;
            e.step = static_cast<std::int32_t>(i / 10000);
            writer->record(e);
        }
        writer->flush();
        state.PauseTiming();
        const WriterStats stats = writer->stats();
        writtenEvents += stats.eventsWritten;
        writerCpuNs += stats.writeCpuNs;
        writer->close();
        writer.reset();
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * events);
    // The writer thread's own rate on one core: events per second of its CPU time.
    state.counters["writer_events_per_cpu_s"] =
        writerCpuNs > 0 ? static_cast<double>(writtenEvents) * 1e9 / writerCpuNs : 0.0;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
}
BENCHMARK(BM_StoreIngest)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

void BM_StoreBulkAppend(benchmark::State& state) {
    const auto events = static_cast<std::int64_t>(state.range(0));
    const auto db = std::filesystem::temp_directory_path() /
                    ("glueprof-bench-bulk-" + std::to_string(getpid()) + ".sqlite");
    std::int64_t batches = 0;
    for (auto _ : state) {
        state.PauseTiming();
        std::filesystem::remove(db);
        auto store = std::make_unique<TraceStore>(db.string());
        const RunId run = store->beginRun(RunInfo{});
        state.ResumeTiming();
        RunAppend append(*store, run);
        Event e;
        e.lane = append.addLane(LaneKind::kHostThread, "bench", -1, 1);
        e.kind = EventKind::kOp;
        e.name = append.intern("aten::mm");
        for (std::int64_t i = 0; i < events; ++i) {
            e.startNs = i * 10;
            e.endNs = e.startNs + 5;
            e.step = static_cast<std::int32_t>(i / 10000);
            append.event(e);
        }
        append.finish(RunStatus::kComplete);
        state.PauseTiming();
        batches += append.batchesWritten();
        store->close();
        store.reset();
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * events);
    state.counters["transactions"] = static_cast<double>(batches) / state.iterations();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
}
BENCHMARK(BM_StoreBulkAppend)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

}  // namespace
}  // namespace glueprof
