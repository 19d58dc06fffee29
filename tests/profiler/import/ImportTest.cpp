// The importers on real traces of other tools (tests/fixtures/import, facts from HTA's test data
// and the fixtures' README) and on hand-made bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzers/Analysis.h"
#include "analyzers/Intervals.h"
#include "analyzers/StepAttribution.h"
#include "analyzers/SyncPoints.h"
#include "analyzers/TraceDiff.h"
#include "profiler/core/Error.h"
#include "profiler/core/Sqlite.h"
#include "profiler/import/ChromeJsonNumbers.h"
#include "profiler/import/JsonTokenBound.h"
#include "profiler/import/TraceImporter.h"

#include "tests/profiler/import/ImportFixtures.h"
#include "tests/support/ScratchDirectoryTest.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) { return testing::importFixture(name); }

ImportedRun load(const std::string& name) { return readTrace(fixture(name), ImportOptions{}); }

using testing::gzipMember;

// The byte offset an import error names ("'F': byte N: ..."), or -1.
long long byteOffsetIn(const std::string& message) {
    const std::size_t at = message.find(": byte ");
    return at == std::string::npos ? -1 : std::stoll(message.substr(at + 7));
}

std::size_t laneOf(const TraceModel& t, LaneKind kind, std::int64_t stream) {
    for (std::size_t i = 0; i < t.lanes().size(); ++i) {
        if (t.lanes()[i].kind == kind && t.lanes()[i].threadOrStream == stream) return i;
    }
    return t.lanes().size();
}

std::int64_t count(const TraceModel& t, EventKind kind) {
    std::int64_t n = 0;
    for (std::size_t i = 0; i < t.lanes().size(); ++i) {
        for (const Event& e : t.eventsOnLane(i)) n += e.kind == kind ? 1 : 0;
    }
    return n;
}

class ImportFiles : public glueprof::testing::ScratchDirectoryTest {
  protected:
    ImportFiles() : ScratchDirectoryTest("glueprof-import-") {}
    // The error message reading `path` gives (an input error), or "" when it reads.
    static std::string errorOf(const std::string& path) {
        try {
            readTrace(path, ImportOptions{});
        } catch (const GlueprofError& e) {
            EXPECT_EQ(e.code(), ExitCode::kInput) << e.what();
            return e.what();
        }
        return "";
    }
};

TEST(KinetoNumbers, MicrosecondTextBecomesExactNanoseconds) {
    EXPECT_EQ(microsToNanos("1707417525509335.123"), 1707417525509335123);
    EXPECT_EQ(microsToNanos("1707417525509335"), 1707417525509335000);
    EXPECT_EQ(microsToNanos("1.5e3"), 1500000);
    EXPECT_EQ(microsToNanos("-2"), -2000);
    EXPECT_EQ(microsToNanos("0.0005"), 0);  // below a nanosecond
    EXPECT_FALSE(microsToNanos("abc"));
    EXPECT_FALSE(microsToNanos("1e300"));
    EXPECT_EQ(validUtf8("ok"), "ok");
    EXPECT_EQ(validUtf8(std::string("x\xFFy")), "x\xEF\xBF\xBDy");
}

// The 64-bit reading of the common forms gives what the exact one does: each text against itself
// with "e0" after it (an exponent, which only the exact reading takes), at every length up to and
// past 64 bits, with 0-5 digits after the point, signed and not.
TEST(KinetoNumbers, TheFastReadingOfPlainNumbersEqualsTheExactOne) {
    std::mt19937_64 random(3);
    int checked = 0;
    for (int length = 1; length <= 22; ++length) {
        for (int fraction = 0; fraction <= std::min(length, 5); ++fraction) {
            for (int round = 0; round < 40; ++round) {
                std::string digits;
                for (int i = 0; i < length; ++i) digits += static_cast<char>('0' + random() % 10);
                if (round % 4 == 0) digits = std::string(static_cast<std::size_t>(length), '9');
                std::string text = fraction == 0 ? digits
                                                 : digits.substr(0, length - fraction) + "." +
                                                       digits.substr(length - fraction);
                if (round % 3 == 1) text = "-" + text;  // all-nines ones too (round % 4 == 0)
                EXPECT_EQ(microsToNanos(text), microsToNanos(text + "e0")) << text;
                ++checked;
            }
        }
    }
    EXPECT_EQ(microsToNanos("9223372036854775.807"), 9223372036854775807);  // INT64_MAX
    EXPECT_FALSE(microsToNanos("9223372036854775.808"));                    // one past it
    EXPECT_EQ(microsToNanos("-9223372036854775.807"), -9223372036854775807);
    EXPECT_FALSE(microsToNanos("1.2.3"));
    EXPECT_FALSE(microsToNanos("-"));
    EXPECT_FALSE(microsToNanos(""));
    EXPECT_GT(checked, 3000);
}

TEST(KinetoImport, EventSyncTraceNamesTheSpinKernelAsWhatTheSyncsWaitFor) {
    const ImportedRun run = load("kineto/hta-event_sync_trace.json.gz");
    const TraceModel& t = run.model;
    EXPECT_EQ(run.read.at("cuda_sync"), 4);
    EXPECT_EQ(run.rank, 0);
    ASSERT_EQ(t.steps().size(), 1u);
    EXPECT_EQ(t.steps()[0].step, 100);
    EXPECT_EQ(count(t, EventKind::kKernel), 4);
    // Stream Sync (after the pageable DtoH copy: one sync point), two Event Syncs, Context Sync.
    const SyncPointsResult syncs = analyzeSyncPoints(t);
    ASSERT_TRUE(syncs.hostSyncsCaptured);
    ASSERT_EQ(syncs.hostSyncs.size(), 4u);
    std::map<std::string, std::string> awaited;
    for (const SyncPoint& p : syncs.hostSyncs) awaited[p.op] = p.awaited;
    const std::string spin = "at::cuda::(anonymous namespace)::spin_kernel(long)";
    EXPECT_EQ(awaited.at("cudaEventSynchronize"), spin);
    EXPECT_EQ(awaited.at("cudaDeviceSynchronize"), spin);
    EXPECT_EQ(awaited.at("aten::_local_scalar_dense"), "Memcpy DtoH (Device -> Pageable)");
    // The op around the blocking copy is a sync point that reads the host.
    EXPECT_EQ(syncs.perStep.at(100), 1);
    EXPECT_EQ(syncs.hostReadsPerStep.at(100), 1);
}

TEST(KinetoImport, AlexnetTraceHasItsKernelsCopiesAndSyncsWhereTheyRan) {
    const ImportedRun run = load("kineto/hta-alexnet-trace.json.gz");
    const TraceModel& t = run.model;
    EXPECT_FALSE(run.stepsFound);  // no ProfilerStep: the whole trace is one step
    EXPECT_EQ(t.steps().size(), 1u);
    EXPECT_EQ(run.read.at("kernel"), 79);
    EXPECT_EQ(run.read.at("cuda_sync"), 41);
    std::int64_t onStream7 = 0;
    std::int64_t onStream20 = 0;
    std::int64_t pageableHtoD = 0;
    for (std::size_t i = 0; i < t.lanes().size(); ++i) {
        for (const Event& e : t.eventsOnLane(i)) {
            if (e.kind == EventKind::kKernel) {
                onStream7 += t.lanes()[i].threadOrStream == 7 ? 1 : 0;
                onStream20 += t.lanes()[i].threadOrStream == 20 ? 1 : 0;
            }
            if (e.kind == EventKind::kMemcpy && e.srcKind == MemoryKind::kPageable &&
                e.dstKind == MemoryKind::kDevice)
                ++pageableHtoD;
        }
    }
    EXPECT_EQ(onStream7, 73);
    EXPECT_EQ(onStream20, 6);
    EXPECT_EQ(pageableHtoD, 16);
    // 20 Stream Wait Events are markers on their streams; 16 Stream Syncs (each after an
    // asynchronous copy from pageable memory, which does not block: the sync is the one sync
    // point) and 5 Context Syncs block the host.
    std::int64_t waitEvents = 0;
    std::int64_t hostSyncMarkers = 0;
    for (std::size_t i = 0; i < t.lanes().size(); ++i) {
        for (const Event& e : t.eventsOnLane(i)) {
            if (e.kind != EventKind::kMarker) continue;
            waitEvents += t.name(e.name) == "Stream Wait Event" ? 1 : 0;
            hostSyncMarkers += t.name(e.name) == "host sync" ? 1 : 0;
        }
    }
    EXPECT_EQ(waitEvents, 20);
    EXPECT_EQ(hostSyncMarkers, 16);  // each Stream Sync marks the stream it waits for
    EXPECT_EQ(count(t, EventKind::kSync), 21);
    // The Context Syncs are on "no stream" (written 4294967295 here): on the calling thread.
    std::int64_t contextSyncs = 0;
    for (std::size_t i = 0; i < t.lanes().size(); ++i) {
        for (const Event& e : t.eventsOnLane(i)) {
            if (e.kind == EventKind::kSync && t.name(e.name) == "cudaDeviceSynchronize") {
                EXPECT_EQ(t.lanes()[i].kind, LaneKind::kHostThread);
                ++contextSyncs;
            }
        }
    }
    EXPECT_EQ(contextSyncs, 5);
}

TEST(KinetoImport, TraceCompareFixturesDifferAsHtaSays) {
    const ImportedRun base = load("kineto/hta-trace_compare-base.json.gz");
    const ImportedRun test = load("kineto/hta-trace_compare-test.json.gz");
    EXPECT_EQ(base.rank, 1);
    const TraceDiffResult diff = diffTraces(base.model, test.model, 1010);
    auto names = [&](NameChange change) {
        std::set<std::string> out;
        for (const NameDiff* d : diff.of(change, DiffSide::kHost)) out.insert(d->name);
        return out;
    };
    EXPECT_EQ(names(NameChange::kAdded),
              (std::set<std::string>{"AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"}));
    EXPECT_EQ(names(NameChange::kRemoved), (std::set<std::string>{"nccl:all_reduce"}));
    EXPECT_EQ(names(NameChange::kUnchanged),
              (std::set<std::string>{"ProfilerStep#1010", "aten::as_strided", "aten::empty",
                                     "cudaEventQuery", "cudaLaunchKernel"}));
    // In base, iteration 1010 holds 6 CPU events and 1 GPU event (its one launched kernel).
    const TraceDiffResult self = diffTraces(base.model, base.model, 1010);
    double host = 0;
    double device = 0;
    for (const NameDiff& d : self.names) {
        (d.side == DiffSide::kHost ? host : device) += d.referenceCount;
    }
    EXPECT_EQ(host, 6.0);
    EXPECT_EQ(device, 1.0);
    for (const NameDiff& d : self.names) {
        if (d.name == "ProfilerStep#1010") {
            EXPECT_DOUBLE_EQ(d.referenceMs, 122.149);
        }
        if (d.name == "nccl:all_reduce") {
            EXPECT_DOUBLE_EQ(d.referenceMs, 0.067);
        }
    }
}

TEST(KinetoImport, AnalyzersNameTheHostWorkInTheGapsAndTheRepeatedSyncs) {
    // The event-sync trace: while the device idles, the host runs aten::ones (its 2.2 ms).
    const AnalysisResult sync = analyze(load("kineto/hta-event_sync_trace.json.gz").model);
    ASSERT_TRUE(sync.glue.fromKernels);
    ASSERT_FALSE(sync.glue.gapWork.empty());
    EXPECT_EQ(sync.glue.gapWork.front().name, "aten::ones");
    // AlexNet: 16 copies from pageable memory, each followed by a stream sync in aten::copy_: one
    // finding, pageable_copies' (pin them), not a second one of "repeated" syncs.
    const AnalysisResult alexnet = analyze(load("kineto/hta-alexnet-trace.json.gz").model);
    const auto ruled = [&](const char* rule) {
        return std::find_if(alexnet.findings.begin(), alexnet.findings.end(),
                            [&](const Finding& f) { return f.rule == rule; });
    };
    EXPECT_EQ(ruled("repeated_host_syncs"), alexnet.findings.end());
    const auto found = ruled("pageable_copies");
    ASSERT_NE(found, alexnet.findings.end());
    EXPECT_NE(found->evidence.find("16 per step"), std::string::npos) << found->evidence;
    EXPECT_NE(found->fix.find("pin"), std::string::npos) << found->fix;
    EXPECT_TRUE(found->toggle.empty());  // no toggle of glueprof's trainer addresses it
}

TEST(NsysImport, CudaReportHasNoCopyComputeOverlapAndItsGpuUnion) {
    const ImportedRun run = load("nsys/test-cuda-report1.sqlite");
    const TraceModel& t = run.model;
    EXPECT_NE(run.formatDetail.find("3.24"), std::string::npos);
    std::vector<Interval> kernels;
    std::vector<Interval> copies;
    std::set<std::int64_t> kernelStreams;
    for (std::size_t i = 0; i < t.lanes().size(); ++i) {
        for (const Event& e : t.eventsOnLane(i)) {
            if (e.kind == EventKind::kKernel) {
                kernels.push_back({e.startNs, e.endNs});
                kernelStreams.insert(t.lanes()[i].threadOrStream);
            }
            if (e.kind == EventKind::kMemcpy) copies.push_back({e.startNs, e.endNs});
        }
    }
    EXPECT_EQ(kernelStreams, (std::set<std::int64_t>{13, 14, 15, 16}));
    EXPECT_EQ(copies.size(), 12u);
    const IntervalSet k = unionOf(kernels);
    const IntervalSet c = unionOf(copies);
    EXPECT_EQ(totalLength(intersectionOf(k, c)), 0);
    std::vector<Interval> all = kernels;
    all.insert(all.end(), copies.begin(), copies.end());
    const IntervalSet gpu = unionOf(all);
    EXPECT_EQ(totalLength(gpu), 92182721);
    EXPECT_EQ(gpu.back().end - gpu.front().start, 101263425);
    EXPECT_EQ(count(t, EventKind::kSync), 1);  // the cudaEventSynchronize
}

TEST_F(ImportFiles, BadInputIsAnInputErrorNamingTheFile) {
    const std::string empty = write("empty.json", "");
    EXPECT_NE(errorOf(empty).find("empty"), std::string::npos);
    const std::string invalid = write("invalid.json", "{\"traceEvents\": [{\"ph\": \"X\",]}");
    EXPECT_NE(errorOf(invalid).find("invalid JSON at byte"), std::string::npos);
    const std::string noEvents = write("none.json", "{\"schemaVersion\": 1}");
    EXPECT_NE(errorOf(noEvents).find("no traceEvents"), std::string::npos);
    const std::string wrongType =
        write("type.json", "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": \"soon\", \"dur\": 1}]}");
    EXPECT_NE(errorOf(wrongType).find("traceEvents[0].ts is a string"), std::string::npos);
    const std::string notArray = write("obj.json", "{\"traceEvents\": {}}");
    EXPECT_NE(errorOf(notArray).find("expected an array"), std::string::npos);
    const std::string binary = write("data.bin", std::string("\x01\x02\x03", 3));
    EXPECT_NE(errorOf(binary).find("neither"), std::string::npos);
    for (const std::string& path : {empty, invalid, noEvents, wrongType, notArray, binary}) {
        EXPECT_NE(errorOf(path).find(path), std::string::npos) << path;
    }
}

TEST_F(ImportFiles, TruncatedGzipSaysSo) {
    std::ifstream in(fixture("kineto/hta-alexnet-trace.json.gz"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string cut = write("cut.json.gz", bytes.substr(0, bytes.size() / 2));
    EXPECT_NE(errorOf(cut).find("truncated gzip"), std::string::npos) << errorOf(cut);
}

TEST_F(ImportFiles, ForeignSqliteIsRefusedWithWhatItIs) {
    const std::string path = (m_dir / "other.sqlite").string();
    {
        SqliteDb db(path, OpenMode::kReadWriteCreate);
        db.exec("CREATE TABLE t (x INTEGER)");
    }
    EXPECT_NE(errorOf(path).find("not an Nsight Systems export"), std::string::npos);
}

TEST_F(ImportFiles, OddButValidEventsAreCountedNotFatal) {
    // Out of order, a negative duration, an unknown category and phase, duplicate correlation
    // ids, begin/end pairs, "no stream" as 4294967295.
    const std::string path = write("odd.json", R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "late", "pid": 1, "tid": 1, "ts": 50, "dur": 5},
      {"ph": "X", "cat": "cpu_op", "name": "early", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
      {"ph": "X", "cat": "cpu_op", "name": "neg", "pid": 1, "tid": 1, "ts": 20, "dur": -3},
      {"ph": "X", "cat": "mystery", "name": "m", "pid": 1, "tid": 1, "ts": 21, "dur": 1},
      {"ph": "C", "name": "counter", "pid": 1, "ts": 22, "args": {"v": 1}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 2, "args": {"correlation": 7}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 33, "dur": 2, "args": {"correlation": 7}},
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 40, "dur": 3.5, "args": {"correlation": 7, "stream": 7, "device": 0}},
      {"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": 4294967295, "ts": 60, "dur": 1, "args": {"stream": 4294967295, "correlation": 99}},
      {"ph": "B", "name": "outer", "cat": "user_annotation", "pid": 1, "tid": 1, "ts": 0},
      {"ph": "E", "pid": 1, "tid": 1, "ts": 70}
    ]})");
    const ImportedRun run = readTrace(path, ImportOptions{});
    EXPECT_EQ(run.skipped.at("events with a negative duration"), 1);
    EXPECT_EQ(run.skipped.at("complete events of category 'mystery' (not mapped)"), 1);
    EXPECT_EQ(run.skipped.at("events of phase 'C' (not a span)"), 1);
    EXPECT_EQ(run.skipped.at("host-blocking synchronization whose API call is not in the trace"),
              1);
    EXPECT_EQ(run.skipped.count(
                  "runtime calls sharing a correlation id with an earlier call (the first is "
                  "linked)"),
              1u);
    const TraceModel& t = run.model;
    const std::size_t host = laneOf(t, LaneKind::kHostThread, 1);
    ASSERT_LT(host, t.lanes().size());
    const std::vector<Event>& events = t.eventsOnLane(host);
    EXPECT_EQ(t.name(events.front().name), "outer");  // sorted, the B/E range first
    EXPECT_EQ(events.front().endNs, 70000);
    const std::size_t stream = laneOf(t, LaneKind::kCudaStream, 7);
    ASSERT_LT(stream, t.lanes().size());
    EXPECT_EQ(t.eventsOnLane(stream).front().endNs - t.eventsOnLane(stream).front().startNs, 3500);
}

// The dialect is decided once, by otherData.producer: only glueprof's own export has its args
// (step, category, ...) read, and checked; a Kineto trace's are passed over, whatever they hold.
// The read tells its progress every 65,536 events and once at the end, by the bytes of the file,
// never going back; a report that throws stops the read there (how an import that ended early
// stops a read still in flight, ImportRequest.cpp).
TEST_F(ImportFiles, AReadReportsItsProgressAndStopsWhereAReportThrows) {
    std::string json = "{\"traceEvents\": [";
    constexpr int kEvents = 140000;  // two reports during the read, one at its end
    for (int i = 0; i < kEvents; ++i) {
        json += fmt::format(R"({}{{"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, )"
                            R"("tid": 1, "ts": {}, "dur": 1}})",
                            i == 0 ? "" : ", ", i * 2);
    }
    const std::string path = write("many.json", json + "]}");
    std::vector<std::pair<std::uint64_t, std::uint64_t>> told;
    ImportOptions options;
    options.readProgress = [&](std::uint64_t done, std::uint64_t total) {
        told.emplace_back(done, total);
    };
    const ImportedRun run = readTrace(path, options);
    EXPECT_EQ(run.model.eventCount(), static_cast<std::size_t>(kEvents));
    ASSERT_EQ(told.size(), 3u);
    for (std::size_t i = 1; i < told.size(); ++i) EXPECT_GE(told[i].first, told[i - 1].first);
    EXPECT_EQ(told.back(), std::make_pair(static_cast<std::uint64_t>(fs::file_size(path)),
                                          static_cast<std::uint64_t>(fs::file_size(path))));

    struct Stop {};
    int reports = 0;
    options.readProgress = [&](std::uint64_t, std::uint64_t) {
        ++reports;
        throw Stop{};
    };
    EXPECT_THROW(readTrace(path, options), Stop);
    EXPECT_EQ(reports, 1);  // stopped at the first report, 65,536 events in
}

TEST_F(ImportFiles, GlueprofArgsAreReadOnlyFromItsOwnExport) {
    const std::string op =
        R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 10, "dur": 5, )"
        R"("args": {"category": "comm", "step": 4, "flags": 1}})";
    const std::string bad = R"({"ph": "X", "cat": "cpu_op", "name": "bad", "pid": 1, "tid": 1, )"
                            R"("ts": 20, "dur": 5, "args": {"step": true}})";
    const std::string producer = R"("otherData": {"producer": "glueprof"})";
    auto firstOp = [](const ImportedRun& run) {
        return run.model.eventsOnLane(laneOf(run.model, LaneKind::kHostThread, 1)).front();
    };

    const ImportedRun kineto =
        readTrace(write("kineto.json", "{\"traceEvents\": [" + op + ", " + bad + "]}"), {});
    EXPECT_EQ(kineto.format, "Kineto JSON");
    EXPECT_EQ(firstOp(kineto).category, Category::kMath);
    EXPECT_EQ(firstOp(kineto).flags & kFlagWouldSync, 0u);

    const ImportedRun own =
        readTrace(write("own.json", "{" + producer + ", \"traceEvents\": [" + op + "]}"), {});
    EXPECT_EQ(own.format, "glueprof Chrome export");
    EXPECT_EQ(firstOp(own).category, Category::kComm);
    EXPECT_EQ(firstOp(own).step, 4);
    EXPECT_EQ(firstOp(own).flags, 1u);
    EXPECT_NE(errorOf(write("bad.json", "{" + producer + ", \"traceEvents\": [" + bad + "]}"))
                  .find("traceEvents[0].args.step is a boolean; expected an integer"),
              std::string::npos);

    // Named after the events: they were read as Kineto's, the file is still glueprof's.
    const ImportedRun late =
        readTrace(write("late.json", "{\"traceEvents\": [" + op + "], " + producer + "}"), {});
    EXPECT_EQ(late.format, "glueprof Chrome export");
    EXPECT_EQ(firstOp(late).category, Category::kMath);
}

TEST_F(ImportFiles, SyncsWaitOnTheirStreamAndRepeatedCopySyncPairsMergeInLinearTime) {
    // Stream 20 runs a long kernel; the event sync waits on stream 7 (wait_on_stream), whose last
    // work is the short kernel: that is what it awaits. Then 3000 .item()-style pairs: a pageable
    // DtoH copy and the stream sync right after it, one sync point each.
    std::string json = R"({"traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 0, "dur": 1000000},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "short7", "pid": 0, "tid": 7, "ts": 3, "dur": 2, "args": {"correlation": 1, "stream": 7, "device": 0}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 4, "dur": 1, "args": {"correlation": 2}},
      {"ph": "X", "cat": "kernel", "name": "long20", "pid": 0, "tid": 20, "ts": 6, "dur": 90, "args": {"correlation": 2, "stream": 20, "device": 0}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventSynchronize", "pid": 1, "tid": 1, "ts": 10, "dur": 3, "args": {"correlation": 3}},
      {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 10, "dur": 2, "args": {"correlation": 3, "stream": -1, "wait_on_stream": 7, "device": 0}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 14, "dur": 83, "args": {"correlation": 4}})";
    constexpr int kPairs = 3000;
    for (int i = 0; i < kPairs; ++i) {
        const long ts = 200 + 10L * i;
        const long c = 100 + 2L * i;
        json += fmt::format(
            R"J(,
      {{"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 1, "tid": 1, "ts": {}, "dur": 8}},
      {{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": {}, "dur": 2, "args": {{"correlation": {}}}}},
      {{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": {}, "dur": 1, "args": {{"correlation": {}, "stream": 7, "device": 0, "bytes": 4}}}},
      {{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": {}, "dur": 2, "args": {{"correlation": {}}}}})J",
            ts, ts + 1, c, ts + 2, c, ts + 4, c + 1);
    }
    json += "]}";
    const ImportedRun run = readTrace(write("syncs.json", json), ImportOptions{});
    // No cuda_sync records for the pairs' stream syncs (older PyTorch): taken from the calls,
    // then merged into the copies' syncs; cudaDeviceSynchronize has no record either.
    EXPECT_EQ(run.derived.at("host syncs taken from their API call (no sync record in the trace)"),
              kPairs + 1);
    EXPECT_EQ(run.derived.at(
                  "host syncs right after a blocking copy, merged into its sync (one sync point)"),
              kPairs);
    const SyncPointsResult syncs = analyzeSyncPoints(run.model);
    ASSERT_EQ(syncs.hostSyncs.size(), static_cast<std::size_t>(kPairs + 2));
    std::map<std::string, std::string> awaited;
    for (const SyncPoint& p : syncs.hostSyncs) awaited.emplace(p.op, p.awaited);
    EXPECT_EQ(awaited.at("cudaEventSynchronize"), "short7");   // its event's stream, not stream 20
    EXPECT_EQ(awaited.at("cudaDeviceSynchronize"), "long20");  // every stream
    EXPECT_EQ(awaited.at("aten::item"), "Memcpy DtoH (Device -> Pageable)");
    EXPECT_EQ(syncs.hostReadsPerStep.at(3), kPairs);
}

TEST_F(ImportFiles, AnMtiaDevicesEventsAreItsKernelsAndCopiesAsHtaTakesThem) {
    // An MTIA trace: device events under cat mtia_ccp_events, launches under mtia_runtime (HTA:
    // kernels and memory events `mtia_ccp_events`, CPU events `^(.+)_runtime`).
    const std::string json = R"({"traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
      {"ph": "X", "cat": "mtia_runtime", "name": "runFunction - job_prep_and_submit_for_execution", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "args": {"correlation": 1}},
      {"ph": "X", "cat": "mtia_ccp_events", "name": "aten::mm", "pid": 0, "tid": 3, "ts": 10, "dur": 20, "args": {"correlation": 1, "stream": 3, "device": 0}},
      {"ph": "X", "cat": "mtia_runtime", "name": "runFunction - job_prep_and_submit_for_execution", "pid": 1, "tid": 1, "ts": 4, "dur": 2, "args": {"correlation": 2}},
      {"ph": "X", "cat": "mtia_ccp_events", "name": "Memcpy HtoD", "pid": 0, "tid": 3, "ts": 40, "dur": 5, "args": {"correlation": 2, "stream": 3, "device": 0}},
      {"ph": "X", "cat": "MTIA_CCP_EVENTS", "name": "Memset", "pid": 0, "tid": 3, "ts": 50, "dur": 1, "args": {"correlation": 3, "stream": 3, "device": 0}}
    ]})";
    const ImportedRun run = readTrace(write("mtia.json", json), ImportOptions{});
    EXPECT_EQ(count(run.model, EventKind::kKernel), 1);
    EXPECT_EQ(count(run.model, EventKind::kMemcpy), 1);
    EXPECT_EQ(count(run.model, EventKind::kMemset), 1);
    EXPECT_EQ(count(run.model, EventKind::kRuntime), 2);
    for (const auto& [what, n] : run.skipped)
        EXPECT_EQ(what.find("mtia"), std::string::npos) << what;
}

TEST_F(ImportFiles, SyncRecordsKeepTheirKindAndAStreamSyncHasNoStreamWait) {
    // CUPTI's event-sync record under a cudaEventQuery call is named by the record; a stream-wait
    // record correlated with a cudaStreamSynchronize (Nsight writes one beside each) is no wait
    // of a stream; the one under cudaStreamWaitEvent is.
    const std::string json = R"({"traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "pid": 1, "tid": 1, "ts": 10, "dur": 3, "args": {"correlation": 1}},
      {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 10, "dur": 2, "args": {"correlation": 1, "stream": -1, "device": 0}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 2}},
      {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 20, "dur": 4, "args": {"correlation": 2, "stream": 7, "device": 0}},
      {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7, "ts": 20, "dur": 0, "args": {"correlation": 2, "stream": 7, "device": 0}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 1, "ts": 30, "dur": 1, "args": {"correlation": 3}},
      {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 8, "ts": 30, "dur": 0, "args": {"correlation": 3, "stream": 8, "device": 0}}
    ]})";
    const ImportedRun run = readTrace(write("sync-kinds.json", json), ImportOptions{});
    std::vector<std::string> syncs;
    std::vector<std::string> streamWaits;
    for (std::size_t i = 0; i < run.model.lanes().size(); ++i) {
        for (const Event& e : run.model.eventsOnLane(i)) {
            if (e.kind == EventKind::kSync) syncs.push_back(run.model.name(e.name));
            if (e.kind == EventKind::kMarker && run.model.name(e.name) == "Stream Wait Event")
                streamWaits.push_back(
                    fmt::format("{}@{}", e.correlation, run.model.lanes()[i].threadOrStream));
        }
    }
    std::sort(syncs.begin(), syncs.end());
    EXPECT_EQ(syncs, (std::vector<std::string>{"Event Sync", "cudaStreamSynchronize"}));
    EXPECT_EQ(streamWaits, (std::vector<std::string>{"3@8"}));
    EXPECT_EQ(run.skipped.at("stream wait event whose API call is not cudaStreamWaitEvent (a "
                             "stream sync's echo)"),
              1);
}

TEST_F(ImportFiles, AStepMarkerWrittenAsAnOpIsAStep) {
    const std::string path = write("opstep.json", R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
      {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 100, "dur": 5}
    ]})");
    const ImportedRun run = readTrace(path, ImportOptions{});
    ASSERT_TRUE(run.stepsFound);
    ASSERT_EQ(run.model.steps().size(), 1u);
    EXPECT_EQ(run.model.steps()[0].step, 5);
    const std::vector<Event>& events = run.model.eventsOnLane(0);
    EXPECT_EQ(events[0].kind, EventKind::kRange);
    EXPECT_EQ(events[1].step, 5);
    EXPECT_EQ(events[1].flags & kFlagNested, 0u);  // not inside the step "op"
    EXPECT_EQ(events[2].step, kNoTag);             // [start, end): at the end is after the step
}

TEST_F(ImportFiles, EmptyOrMetadataOnlyTracesAreRefusedAndABomIsSkipped) {
    EXPECT_NE(errorOf(write("none.json", R"({"traceEvents": []})")).find("holds no events"),
              std::string::npos);
    EXPECT_NE(errorOf(write("meta.json", R"([{"ph": "M", "name": "process_name", "pid": 1}])"))
                  .find("holds no events"),
              std::string::npos);
    const std::string bom =
        write("bom.json",
              "\xEF\xBB\xBF{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
              "\"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}");
    EXPECT_EQ(errorOf(bom), "");
    EXPECT_NE(errorOf(write("objts.json", R"({"traceEvents": [{"ph": "X", "ts": {}}]})"))
                  .find("traceEvents[0].ts is an object"),
              std::string::npos);
    EXPECT_NE(
        errorOf(write("rank.json", R"({"distributedInfo": {"rank": 1.5}, "traceEvents": []})"))
            .find("distributedInfo.rank is not an integer"),
        std::string::npos);
}

// Issue 28, item 8: one 1 GiB event name in a 1 MB gzip drove the import past 3 GB of memory.
// A name longer than kMaxTraceNameBytes is refused while it is read, naming the event.
TEST_F(ImportFiles, AGibibyteNameInAMegabyteGzipIsRefusedWhileItIsRead) {
    const std::string path = (m_dir / "bomb.json.gz").string();
    {
        std::ofstream out(path, std::ios::binary);
        out << gzipMember(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": ")");
        const std::string mebibyte = gzipMember(std::string(std::size_t{1} << 20, 'a'));
        for (int i = 0; i < 1024; ++i) out << mebibyte;
        out << gzipMember(R"(", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})");
    }
    EXPECT_LT(fs::file_size(path), std::uintmax_t{4} << 20);
    const std::string message = errorOf(path);
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("traceEvents[0].name ('aaaaaaaa"), std::string::npos) << message;
    EXPECT_NE(message.find("longer than 64 KiB"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
    // Refused after about the bound, not after the gibibyte (the offset is in the JSON text).
    const long long offset = byteOffsetIn(message);
    EXPECT_GT(offset, static_cast<long long>(kMaxTraceNameBytes)) << message;
    EXPECT_LT(offset, static_cast<long long>(2 * kMaxTraceNameBytes)) << message;
}

TEST_F(ImportFiles, ANameOfExactlyTheBoundIsReadAndOneByteMoreIsRefused) {
    auto trace = [&](const std::string& file, std::size_t nameBytes) {
        return write(file, R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": ")" +
                               std::string(nameBytes, 'k') +
                               R"(", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})");
    };
    const ImportedRun run = readTrace(trace("at.json", kMaxTraceNameBytes), ImportOptions{});
    std::vector<std::size_t> opNames;
    for (std::size_t i = 0; i < run.model.lanes().size(); ++i) {
        for (const Event& e : run.model.eventsOnLane(i)) {
            if (e.kind == EventKind::kOp) opNames.push_back(run.model.name(e.name).size());
        }
    }
    EXPECT_EQ(opNames, std::vector<std::size_t>{kMaxTraceNameBytes});
    const std::string over = errorOf(trace("over.json", kMaxTraceNameBytes + 1));
    EXPECT_NE(over.find("traceEvents[0].name ('kkkk"), std::string::npos) << over;
    EXPECT_NE(over.find("shorten or drop that event"), std::string::npos) << over;
}

TEST_F(ImportFiles, AnIgnoredStringLongerThan64MiBIsRefused) {
    // Fields glueprof passes over may be long (metadata), but not without bound: RapidJSON holds a
    // string whole before the handler sees it (65 MiB here: about 74 MB of memory while read).
    const std::string path = (m_dir / "notes.json.gz").string();
    {
        std::ofstream out(path, std::ios::binary);
        out << gzipMember(
            R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, )"
            R"("tid": 1, "ts": 1, "dur": 1}], "notes": ")");
        const std::string mebibyte = gzipMember(std::string(std::size_t{1} << 20, 'b'));
        for (std::size_t i = 0; i <= (kMaxJsonTokenBytes >> 20); ++i) out << mebibyte;
        out << gzipMember("\"}");
    }
    const std::string message = errorOf(path);
    EXPECT_NE(message.find("a JSON string or number ('bbbb"), std::string::npos) << message;
    EXPECT_NE(message.find("longer than 64 MiB"), std::string::npos) << message;
}

// Issue 28, item 16: a gzip of 20 MiB of NUL bytes was called "empty".
TEST_F(ImportFiles, NulBytesAreNotJsonAtTheirOffsetNotAnEmptyFile) {
    const std::string zeros =
        write("zeros.json.gz", gzipMember(std::string(std::size_t{20} << 20, '\0')));
    const std::string message = errorOf(zeros);
    EXPECT_NE(message.find("not JSON: byte 0 of the decompressed data is a NUL byte"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find("empty"), std::string::npos) << message;
    // In the middle of plain JSON: the offset of the NUL.
    const std::string middle =
        write("middle.json", std::string("{\"traceEvents\": [") + '\0' + "]}");
    EXPECT_NE(errorOf(middle).find("not JSON: byte 17 is a NUL byte"), std::string::npos)
        << errorOf(middle);
    // A gzip of nothing is still empty.
    EXPECT_NE(errorOf(write("nothing.json.gz", gzipMember(""))).find("is empty"),
              std::string::npos);
}

// Issue 28, item 15: Nsight rows with start 'abc', x'00ff' or end 1e300 became kernels at time 0
// named [Unknown] (StringIds 0) or ending at INT64_MAX. They are skipped and counted, as rows
// with NULLs are.
TEST_F(ImportFiles, NsightRowsWithTextBlobOrRealValuesAreSkippedAndCounted) {
    const std::string original = fixture("nsys/test-cuda-report1.sqlite");
    const std::string path = (m_dir / "damaged.sqlite").string();
    fs::copy_file(original, path);
    {
        SqliteDb db(path, OpenMode::kReadWrite);
        auto nth = [](const char* table, int n) {
            return fmt::format("rowid = (SELECT rowid FROM {} ORDER BY rowid LIMIT 1 OFFSET {})",
                               table, n);
        };
        const char* kernels = "CUPTI_ACTIVITY_KIND_KERNEL";
        db.exec(fmt::format("UPDATE {} SET start = 'abc' WHERE {}", kernels, nth(kernels, 0)));
        db.exec(fmt::format("UPDATE {} SET start = x'00ff' WHERE {}", kernels, nth(kernels, 1)));
        db.exec(fmt::format("UPDATE {} SET \"end\" = 1e300 WHERE {}", kernels, nth(kernels, 2)));
        const char* copies = "CUPTI_ACTIVITY_KIND_MEMCPY";
        db.exec(fmt::format("UPDATE {} SET correlationId = 'x' WHERE {}", copies, nth(copies, 0)));
    }
    const ImportedRun before = readTrace(original, ImportOptions{});
    const ImportedRun run = readTrace(path, ImportOptions{});
    EXPECT_EQ(run.skipped.at("kernel with a value that is not an integer (text, blob or real)"), 3);
    EXPECT_EQ(run.skipped.at("memcpy with a value that is not an integer (text, blob or real)"), 1);
    EXPECT_EQ(count(run.model, EventKind::kKernel), count(before.model, EventKind::kKernel) - 3);
    EXPECT_EQ(count(run.model, EventKind::kMemcpy), count(before.model, EventKind::kMemcpy) - 1);
    for (std::size_t i = 0; i < run.model.lanes().size(); ++i) {
        for (const Event& e : run.model.eventsOnLane(i)) {
            if (e.kind != EventKind::kKernel) continue;
            EXPECT_GT(e.startNs, 0);
            EXPECT_LT(e.endNs, std::numeric_limits<TimestampNs>::max());
            EXPECT_NE(run.model.name(e.name), "[Unknown]");
        }
    }
}

// Issue 28, item 11: a symbolic link that loops in a directory of traces ended the import with
// "internal error: filesystem error ... Too many levels of symbolic links". Such links (and links
// to a missing file) hold no trace: they are passed over and named; the rest is imported.
TEST_F(ImportFiles, LinksThatLoopOrLeadNowhereInADirectoryAreSkippedAndNamed) {
    const fs::path dir = m_dir / "traces";
    fs::create_directories(dir);
    std::ofstream(dir / "good.json") << R"({"traceEvents": []})";
    fs::create_symlink("self.json", dir / "self.json");
    fs::create_symlink("b.json", dir / "a.json");
    fs::create_symlink("a.json", dir / "b.json");
    fs::create_symlink("missing.json", dir / "dangling.json");
    fs::create_symlink("self.json", dir / "notes");  // not a trace's name: ignored as before
    const TraceInputs inputs = expandTraceInputs({dir.string()});
    EXPECT_EQ(inputs.files, std::vector<std::string>{(dir / "good.json").string()});
    ASSERT_EQ(inputs.skipped.size(), 4u);
    EXPECT_EQ(inputs.skipped[0], fmt::format("skipped '{}': a symbolic link that loops (it never "
                                             "reaches a file)",
                                             (dir / "a.json").string()));
    EXPECT_EQ(inputs.skipped[2], fmt::format("skipped '{}': a symbolic link to a missing file",
                                             (dir / "dangling.json").string()));
    // Nothing but such links: no traces, said in one line; the loop itself given: an input error.
    fs::remove(dir / "good.json");
    try {
        expandTraceInputs({dir.string()});
        ADD_FAILURE() << "a directory of loops expanded";
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kInput);
        EXPECT_NE(std::string(e.what()).find("holds no trace files"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("only 4 symbolic link(s) to no file"),
                  std::string::npos)
            << e.what();
    }
    try {
        expandTraceInputs({(dir / "self.json").string()});
        ADD_FAILURE() << "a looping link expanded";
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kInput);
        EXPECT_NE(std::string(e.what()).find("is a symbolic link that loops"), std::string::npos)
            << e.what();
    }
}

// Issue 28, item 17: `import td --db td/out.sqlite` a second time read its own output database as
// a trace. The output (by inode: any spelling of its path, a link to it) is no trace of its
// directory.
TEST_F(ImportFiles, TheOutputDatabaseIsNoTraceOfItsDirectory) {
    const fs::path dir = m_dir / "td";
    fs::create_directories(dir);
    std::ofstream(dir / "rank0.json") << R"({"traceEvents": []})";
    std::ofstream(dir / "out.sqlite") << "a database";
    fs::create_symlink("out.sqlite", dir / "link-to-out.sqlite");
    const std::vector<std::string> traces{(dir / "rank0.json").string()};
    EXPECT_EQ(expandTraceInputs({dir.string()}, (dir / "out.sqlite").string()).files, traces);
    EXPECT_EQ(expandTraceInputs({dir.string()}, (dir / "." / "out.sqlite").string()).files, traces);
    // Without --db there, the database is one of the directory's files.
    EXPECT_EQ(expandTraceInputs({dir.string()}, (m_dir / "elsewhere.sqlite").string()).files.size(),
              3u);
    fs::remove(dir / "rank0.json");
    try {
        expandTraceInputs({dir.string()}, (dir / "out.sqlite").string());
        ADD_FAILURE() << "a directory of only the output expanded";
    } catch (const GlueprofError& e) {
        EXPECT_NE(std::string(e.what()).find("only the output database"), std::string::npos)
            << e.what();
    }
}
}  // namespace
}  // namespace glueprof

namespace glueprof {
namespace {

// Issue 54: on every real trace, each measured step's time on each GPU is attributed once, the
// parts adding up to the step exactly.
TEST(KinetoImport, EveryFixturesStepsAreAttributedToTheNanosecond) {
    for (const char* name :
         {"kineto/hta-alexnet-trace.json.gz", "kineto/hta-event_sync_trace.json.gz",
          "kineto/hta-trace_compare-base.json.gz", "kineto/hta-trace_compare-test.json.gz",
          "nsys/test-cuda-report1.sqlite"}) {
        const ImportedRun run = readTrace(testing::importFixture(name), ImportOptions{});
        const StepAttributionResult r = attributeSteps(run.model);
        EXPECT_FALSE(r.steps.empty()) << name;
        // Nsight's report: cudaHostAlloc (701.9 ms) and cudaFreeHost (139.0 ms) hold the host
        // while the GPU idles: setup calls, not launch-bound time.
        if (std::string(name).rfind("nsys/", 0) == 0) {
            EXPECT_GT(r.steps.at(0).of(StepCause::kSetupCall), 800 * 1000 * 1000) << name;
        }
        for (const StepAttribution& a : r.steps) {
            EXPECT_EQ(a.sum(), a.wallNs) << name << " step " << a.step << " device " << a.device;
        }
    }
}

}  // namespace
}  // namespace glueprof
