// CUPTI record handling without a GPU: zero-filled real CUPTI records (FakeCuptiRecords) go through
// the production RecordHandler into a real SQLite store, read back with TraceReader.
// Where a host sync right after a blocking copy goes: the table of
// tests/profiler/core/SyncPlacementTable.h, run through this path by CuptiSyncPlacementTest.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "profiler/core/LossDiagnostics.h"
#include "profiler/core/TraceNames.h"
#include "profiler/core/TraceReader.h"
#include "profiler/cupti/CuptiLibrary.h"
#include "profiler/cupti/RecordHandler.h"
#include "profiler/cupti/testing/FakeCuptiRecords.h"
#include "profiler/host/HostTracer.h"

namespace glueprof::cupti {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kTid = 4242;
// Runtime callback ids, named by the test's apiName as CUPTI names them.
constexpr std::uint32_t kLaunchKernel = 211;
constexpr std::uint32_t kMemcpy = 31;
constexpr std::uint32_t kMemcpyAsync = 41;
constexpr std::uint32_t kMemsetAsync = 57;
constexpr std::uint32_t kEventRecord = 135;
constexpr std::uint32_t kStreamSync = 131;
constexpr std::uint32_t kStreamWaitEvent = 147;
constexpr std::uint32_t kDeviceSync = 165;

class CuptiRecordsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("glueprof-cupti-" +
                 std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_db = (m_dir / "trace.sqlite").string();
        m_writer = std::make_unique<TraceWriter>(m_db);
        m_tracer = std::make_unique<HostTracer>(*m_writer);
        m_run = m_writer->beginRun(RunInfo{});
        m_tracer->setRun(m_run);
        CaptureEnvironment env;
        env.writer = m_writer.get();
        env.currentRun = [this] { return m_tracer->run(); };
        env.laneOfThread = [this](RunId run, std::int64_t tid) {
            return m_tracer->laneForOsThread(run, tid);
        };
        env.apiName = [](bool driver, std::uint32_t cbid) {
            if (driver) return std::string("cuLaunchKernel");
            switch (cbid) {
                case kLaunchKernel:
                    return std::string("cudaLaunchKernel");
                case kMemcpy:
                    return std::string("cudaMemcpy_v3020");
                case kMemcpyAsync:
                    return std::string("cudaMemcpyAsync_v3020");
                case kMemsetAsync:
                    return std::string("cudaMemsetAsync_v3020");
                case kEventRecord:
                    return std::string("cudaEventRecord_v3020");
                case kStreamSync:
                    return std::string("cudaStreamSynchronize_v3020");
                case kStreamWaitEvent:
                    return std::string("cudaStreamWaitEvent_v3020");
                case kDeviceSync:
                    return std::string("cudaDeviceSynchronize_v3020");
                default:
                    return "runtime api " + std::to_string(cbid);
            }
        };
        m_handler = std::make_unique<RecordHandler>(env);
    }
    void TearDown() override {
        m_handler.reset();
        m_tracer.reset();
        m_writer.reset();
        fs::remove_all(m_dir);
    }
    TraceModel finishAndRead() {
        m_writer->recordStep(StepRecord{m_run, StepInfo{3, 0, 100000, false, 1, 0.0, 0}});
        m_writer->endRun(m_run, RunStatus::kComplete);
        m_writer->close();
        return TraceReader(m_db).loadRun(m_run);
    }
    // The run's diagnostics by name; each must be a loss and say what it means.
    static std::map<std::string, std::int64_t> storedLosses(const TraceModel& t) {
        std::map<std::string, std::int64_t> stored;
        for (const Diagnostic& d : t.diagnostics()) {
            stored[d.name] = d.value;
            EXPECT_TRUE(isLoss(d.name)) << d.name;
            EXPECT_FALSE(d.detail.empty()) << d.name;
        }
        return stored;
    }
    static const Event* find(const TraceModel& t, EventKind kind, const std::string& name,
                             const Lane** laneOut = nullptr) {
        for (std::size_t l = 0; l < t.lanes().size(); ++l) {
            for (const Event& e : t.eventsOnLane(l)) {
                if (e.kind == kind && t.name(e.name) == name) {
                    if (laneOut != nullptr) *laneOut = &t.lanes()[l];
                    return &e;
                }
            }
        }
        return nullptr;
    }

    fs::path m_dir;
    std::string m_db;
    std::unique_ptr<TraceWriter> m_writer;
    std::unique_ptr<HostTracer> m_tracer;
    std::unique_ptr<RecordHandler> m_handler;
    RunId m_run = 0;
};

TEST_F(CuptiRecordsTest, EveryKindBecomesAnEventOnItsLane) {
    FakeCuptiRecords r;
    r.addRuntime(kLaunchKernel, 1000, 1100, 1, kTid);
    r.addKernel("ampere_sgemm_128x64_nn", 1200, 2000, 1, 7, 0);
    r.addDriver(0, 1010, 1090, 1, kTid);
    r.addRuntime(kMemcpyAsync, 2100, 2300, 2, kTid);
    r.addMemcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, 2150, 2250, 2,
                CUPTI_ACTIVITY_MEMORY_KIND_PINNED, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, true, 9, 0);
    r.addRuntime(kMemsetAsync, 2400, 2500, 3, kTid);
    r.addMemset(512, 2410, 2420, 3, 7, 0);
    r.addRuntime(kEventRecord, 2600, 2700, 4, kTid);
    r.addCudaEvent(4, 7);
    r.addRuntime(kStreamSync, 2800, 3000, 5, kTid);
    r.addSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 2810, 2990, 5, 7);
    r.addRuntime(kStreamWaitEvent, 3100, 3110, 6, kTid);
    r.addSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 3105, 3108, 6, 9);
    r.addMarker(CUPTI_ACTIVITY_FLAG_MARKER_START, 900, 77, "user range", "", kTid);
    r.addMarker(CUPTI_ACTIVITY_FLAG_MARKER_END, 3200, 77, "", "", kTid);
    r.addMarker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 1500, 78, "user mark", "", kTid);
    r.addMarker(CUPTI_ACTIVITY_FLAG_MARKER_START, 950, 79, "layer", "glueprof",
                kTid);                                                   // our own: skipped
    r.addMarker(CUPTI_ACTIVITY_FLAG_MARKER_END, 960, 79, "", "", kTid);  // an END names no domain
    r.addOverhead(CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH, 3300, 3400);
    r.feed(*m_handler);
    m_handler->resolve(3);
    const CaptureCounts c = m_handler->counts();
    EXPECT_EQ(c.records, static_cast<std::int64_t>(r.size()));
    EXPECT_EQ(c.kernels, 1);
    EXPECT_EQ(c.memcpys, 1);
    EXPECT_EQ(c.memsets, 1);
    EXPECT_EQ(c.syncs, 1);  // the stream wait is queued on the device, not a host sync
    EXPECT_EQ(c.apiCalls, 7);
    EXPECT_TRUE(c.losses.empty());

    const TraceModel t = finishAndRead();
    const Lane* lane = nullptr;
    const Event* kernel = find(t, EventKind::kKernel, "ampere_sgemm_128x64_nn", &lane);
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(lane->kind, LaneKind::kCudaStream);
    EXPECT_EQ(lane->name, "GPU 0 stream 7");
    EXPECT_EQ(kernel->correlation, 1);
    EXPECT_EQ(kernel->step, 3);  // no op known: the flushed step
    EXPECT_EQ(kernel->category, Category::kMath);
    const Event* copy = find(t, EventKind::kMemcpy, "memcpy HtoD", &lane);
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(lane->name, "GPU 0 stream 9");
    EXPECT_EQ(copy->bytes, 4096);
    EXPECT_EQ(copy->srcKind, MemoryKind::kPinned);
    EXPECT_EQ(copy->dstKind, MemoryKind::kDevice);
    EXPECT_EQ(copy->category, Category::kCopy);
    ASSERT_NE(find(t, EventKind::kMemset, "memset"), nullptr);
    const Event* launch = find(t, EventKind::kRuntime, "cudaLaunchKernel", &lane);
    ASSERT_NE(launch, nullptr);
    EXPECT_EQ(lane->kind, LaneKind::kHostThread);
    EXPECT_EQ(lane->threadOrStream, kTid);
    ASSERT_NE(find(t, EventKind::kRuntime, "cuLaunchKernel"), nullptr);
    const Event* sync = find(t, EventKind::kSync, "cudaStreamSynchronize", &lane);
    ASSERT_NE(sync, nullptr);
    EXPECT_EQ(lane->threadOrStream, kTid);  // on the thread that called it
    EXPECT_EQ(sync->durationNs(), 180);
    EXPECT_EQ(sync->category, Category::kSync);
    // The stream it waited for is marked where the host began to wait.
    const Event* waited = find(t, EventKind::kMarker, names::kHostSyncMarker, &lane);
    ASSERT_NE(waited, nullptr);
    EXPECT_EQ(lane->name, "GPU 0 stream 7");
    EXPECT_EQ(waited->startNs, 2810);
    EXPECT_EQ(waited->correlation, 5);
    // Its record carries the API call's host times: a marker on the stream where it was queued,
    // never an interval drawn as if the device waited then. Named as Kineto names the record.
    EXPECT_EQ(find(t, EventKind::kWait, "Stream Wait Event"), nullptr);
    const Event* wait = find(t, EventKind::kMarker, "Stream Wait Event", &lane);
    ASSERT_NE(wait, nullptr);
    EXPECT_EQ(lane->name, "GPU 0 stream 9");
    EXPECT_EQ(wait->startNs, 3105);
    EXPECT_EQ(wait->endNs, 3105);
    const Event* mark = find(t, EventKind::kMarker, "cudaEventRecord", &lane);
    ASSERT_NE(mark, nullptr);
    EXPECT_EQ(mark->startNs, 2700);  // at the end of its cudaEventRecord call
    const Event* user = find(t, EventKind::kRange, "user range", &lane);
    ASSERT_NE(user, nullptr);
    EXPECT_EQ(lane->threadOrStream, kTid);
    EXPECT_EQ(user->durationNs(), 2300);
    EXPECT_NE(find(t, EventKind::kMarker, "user mark"), nullptr);
    EXPECT_EQ(find(t, EventKind::kRange, "layer"),
              nullptr);  // glueprof's own NVTX domain is not duplicated
    EXPECT_NE(find(t, EventKind::kRange, "cupti overhead: buffer flush", &lane), nullptr);
    EXPECT_EQ(lane->name, "CUPTI overhead");
    EXPECT_TRUE(t.diagnostics().empty());
}

// A kernel and a copy launched inside an aten op (external correlation = the op's handle) take the
// op's step, layer, micro-batch and category; the launch lands on the op's thread lane, inside it.
TEST_F(CuptiRecordsTest, DeviceRecordsAreAttributedToTheOpThatLaunchedThem) {
    const std::uint64_t opHandle = 0xABCDEF;
    const LaneId thread = m_tracer->laneForOsThread(m_run, kTid);
    Event op;
    op.run = m_run;
    op.lane = thread;
    op.kind = EventKind::kOp;
    op.category = Category::kGlue;
    op.name = m_writer->intern("aten::index_select");
    op.startNs = 900;
    op.endNs = 1500;
    op.step = 5;
    op.layer = 2;
    op.microbatch = 1;
    op.correlation = static_cast<std::int64_t>(opHandle);
    m_writer->record(op);
    m_handler->noteOp(opHandle, OpContext{op.name, 5, 2, 1, Category::kGlue, m_run});

    FakeCuptiRecords r;
    r.addExternalCorrelation(11, opHandle);
    r.addRuntime(kLaunchKernel, 1000, 1100, 11, kTid);
    r.addKernel("index_select_kernel", 1150, 1300, 11);
    r.addExternalCorrelation(12, opHandle);
    r.addRuntime(kMemcpy, 1200, 1450, 12, kTid);
    r.addMemcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 8, 1300, 1310, 12,
                CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, false);
    r.feed(*m_handler);
    m_handler->resolve(9);
    // launch, kernel, memcpy call, memcpy, its sync, and the host sync mark on the copy's stream
    EXPECT_EQ(m_handler->counts().attributedToOps, 6);
    EXPECT_EQ(m_handler->counts().blockingCopies, 1);

    const TraceModel t = finishAndRead();
    const Event* kernel = find(t, EventKind::kKernel, "index_select_kernel");
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->step, 5);
    EXPECT_EQ(kernel->layer, 2);
    EXPECT_EQ(kernel->microbatch, 1);
    EXPECT_EQ(kernel->category, Category::kGlue);
    const Lane* lane = nullptr;
    const Event* launch = find(t, EventKind::kRuntime, "cudaLaunchKernel", &lane);
    ASSERT_NE(launch, nullptr);
    EXPECT_EQ(lane->id, thread);  // the op's own lane
    EXPECT_GE(launch->startNs, op.startNs);
    EXPECT_LE(launch->endNs, op.endNs);
    // The blocking device->host copy is a sync point over its API call, on the op's thread, tagged
    // with the op's layer: what the sync-point analyzer attributes to aten::index_select.
    const Event* blocked = find(t, EventKind::kSync, "blocking DtoH copy", &lane);
    ASSERT_NE(blocked, nullptr);
    EXPECT_EQ(lane->id, thread);
    EXPECT_EQ(blocked->startNs, 1200);
    EXPECT_EQ(blocked->endNs, 1450);
    EXPECT_EQ(blocked->layer, 2);
    EXPECT_EQ(blocked->category, Category::kSync);
}

// The profiler's own device sync before a flush (its API call and its synchronization record, on
// the flushing thread inside the window it reported) is no sync point of the program.
TEST_F(CuptiRecordsTest, TheProfilersOwnDeviceSyncIsNotWritten) {
    FakeCuptiRecords r;
    r.addRuntime(kDeviceSync, 1000, 1500, 30, kTid);  // cudaDeviceSynchronize, by the flush
    r.addSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 1010, 1490, 30, 7);
    r.addRuntime(kStreamSync, 2000, 2500, 31, kTid);  // the program's own, after the window
    r.addSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 2010, 2490, 31, 7);
    r.feed(*m_handler);
    m_handler->ignoreHostCalls(kTid, 990, 1510);
    m_handler->resolve(3);
    EXPECT_EQ(m_handler->counts().syncs, 1);
    EXPECT_TRUE(m_handler->counts().losses.empty());
    const TraceModel t = finishAndRead();
    EXPECT_EQ(find(t, EventKind::kSync, "cudaDeviceSynchronize"), nullptr);
    EXPECT_NE(find(t, EventKind::kSync, "cudaStreamSynchronize"), nullptr);
    std::size_t runtimeCalls = 0;
    for (std::size_t l = 0; l < t.lanes().size(); ++l) {
        for (const Event& e : t.eventsOnLane(l)) runtimeCalls += e.kind == EventKind::kRuntime;
    }
    EXPECT_EQ(runtimeCalls, 1u);
}

// A synchronous copy from pageable host memory to the device begins with a stream sync: it blocks
// the host (a sync point over its call); from pinned memory, or asynchronous, it is not counted.
TEST_F(CuptiRecordsTest, APageableHostToDeviceCopyIsASyncPointAndAPinnedOneIsNot) {
    FakeCuptiRecords r;
    r.addRuntime(kMemcpy, 1000, 1400, 20, kTid);
    r.addMemcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 64, 1300, 1350, 20,
                CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, false, 7,
                0);
    r.addRuntime(kMemcpyAsync, 2000, 2010, 21, kTid);
    r.addMemcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 64, 2100, 2150, 21,
                CUPTI_ACTIVITY_MEMORY_KIND_PINNED, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, true, 7, 0);
    r.addRuntime(kMemcpyAsync, 3000, 3010, 22,
                 kTid);  // asynchronous from pageable memory: not counted
    r.addMemcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 64, 3100, 3150, 22,
                CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, true, 7, 0);
    r.feed(*m_handler);
    m_handler->resolve(3);
    EXPECT_EQ(m_handler->counts().blockingCopies, 1);
    const TraceModel t = finishAndRead();
    const Event* blocked = find(t, EventKind::kSync, "blocking HtoD copy");
    ASSERT_NE(blocked, nullptr);
    EXPECT_EQ(blocked->startNs, 1000);
    EXPECT_EQ(blocked->endNs, 1400);
}

// Launch -> kernel on one clock: the host side read the same timestamps CUPTI stamps records with
// (here a fake timestamp source installed as CuptiSession installs cuptiGetTimestamp).
TEST_F(CuptiRecordsTest, OneClockLaunchPrecedesItsKernelInTheRecordedTrace) {
    static std::atomic<TimestampNs> fakeCuptiNow{5000};
    const Clock::Source previous = Clock::useSource([] { return fakeCuptiNow.fetch_add(100); });
    const TimestampNs hostStart = Clock::nowNs();  // 5000
    const TimestampNs hostEnd = Clock::nowNs();    // 5100
    Clock::useSource(previous);
    EXPECT_EQ(hostStart, 5000);
    EXPECT_EQ(hostEnd, 5100);

    FakeCuptiRecords r;
    for (std::uint32_t i = 0; i < 50; ++i) {
        const std::uint64_t t = 5000 + 40 * i;
        r.addRuntime(kLaunchKernel, t, t + 10, 100 + i, kTid);
        r.addKernel("k", t + 15 + (i % 7), t + 60, 100 + i);  // queued behind earlier kernels
    }
    r.feed(*m_handler);
    m_handler->resolve(3);
    const TraceModel t = finishAndRead();
    std::map<std::int64_t, TimestampNs> launchStart;
    std::size_t kernels = 0;
    for (std::size_t l = 0; l < t.lanes().size(); ++l) {
        for (const Event& e : t.eventsOnLane(l)) {
            if (e.kind == EventKind::kRuntime) launchStart[e.correlation] = e.startNs;
        }
    }
    for (std::size_t l = 0; l < t.lanes().size(); ++l) {
        for (const Event& e : t.eventsOnLane(l)) {
            if (e.kind != EventKind::kKernel) continue;
            ++kernels;
            ASSERT_EQ(launchStart.count(e.correlation), 1u);
            EXPECT_LT(launchStart[e.correlation], e.startNs) << "correlation " << e.correlation;
        }
    }
    EXPECT_EQ(kernels, 50u);
}

// Everything lost is counted into the diagnostics table, summed per name across flushes.
// A kernel CUPTI delivers one flush after its launch (its buffer completed late) still finds its
// launch and its op: it takes the op's step, not the step flushed when it arrived, and no loss.
TEST_F(CuptiRecordsTest, ARecordDeliveredAFlushLateKeepsItsOpAndStep) {
    m_handler->noteOp(77, OpContext{m_writer->intern("aten::mm"), 2, 1, 0, Category::kMath, m_run});
    FakeCuptiRecords first;
    first.addRuntime(kLaunchKernel, 1000, 1100, 5, kTid);
    first.addExternalCorrelation(5, 77);
    first.feed(*m_handler);
    m_handler->resolve(2);
    FakeCuptiRecords late;
    late.addKernel("late_kernel", 1200, 1900, 5);
    late.feed(*m_handler);
    m_handler->resolve(3);
    EXPECT_TRUE(m_handler->counts().losses.empty());
    const TraceModel t = finishAndRead();
    const Event* kernel = find(t, EventKind::kKernel, "late_kernel");
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->step, 2);  // the op's, not the flushed step 3
    EXPECT_EQ(kernel->layer, 1);
}

// A kernel whose launch has not been seen waits one flush for it; when it never comes the kernel
// is written (on its stream, the flushed step) and counted once as a lost correlation.
TEST_F(CuptiRecordsTest, ARecordWithoutItsLaunchWaitsOneFlushThenCountsAsLost) {
    FakeCuptiRecords first;
    first.addKernel("early_kernel", 1200, 1900, 6);
    first.feed(*m_handler);
    m_handler->resolve(1);
    EXPECT_TRUE(m_handler->counts().losses.empty());  // waiting
    FakeCuptiRecords launch;
    launch.addRuntime(kLaunchKernel, 1000, 1100, 6, kTid);  // arrives with the next flush
    launch.addKernel("orphan_kernel", 2000, 2100, 8);       // this one's launch never comes
    launch.feed(*m_handler);
    m_handler->resolve(2);
    EXPECT_TRUE(m_handler->counts().losses.empty());
    m_handler->resolve(3);
    const std::map<std::string, std::int64_t> lost = {{loss::kCuptiUnmatched, 1}};
    EXPECT_EQ(m_handler->counts().losses, lost);
    const TraceModel t = finishAndRead();
    EXPECT_NE(find(t, EventKind::kKernel, "early_kernel"), nullptr);
    const Event* orphan = find(t, EventKind::kKernel, "orphan_kernel");
    ASSERT_NE(orphan, nullptr);
    EXPECT_EQ(orphan->step, 3);
}

// An op started outside any run (a trainer built between A/B arms) is not traced: neither are the
// records it launched, whatever run is current when they are resolved.
TEST_F(CuptiRecordsTest, RecordsOfAnOpOutsideAnyRunAreNotTraced) {
    m_handler->noteOp(
        55, OpContext{m_writer->intern("aten::copy_"), kNoTag, kNoTag, kNoTag, Category::kMath, 0});
    FakeCuptiRecords r;
    r.addRuntime(kLaunchKernel, 1000, 1100, 12, kTid);
    r.addExternalCorrelation(12, 55);
    r.addKernel("init_kernel", 1200, 1900, 12);
    r.feed(*m_handler);
    m_handler->resolve(0);
    const TraceModel t = finishAndRead();
    EXPECT_EQ(find(t, EventKind::kKernel, "init_kernel"), nullptr);
    EXPECT_EQ(find(t, EventKind::kRuntime, "cudaLaunchKernel"), nullptr);
}

// Interleaved A/B: an op of arm A launched a kernel; by the flush the tracer records arm B. The
// kernel and its launch go to arm A's run, on arm A's lanes.
TEST_F(CuptiRecordsTest, RecordsGoToTheRunTheirOpRanInNotTheRunCurrentAtFlush) {
    const RunId armB = m_writer->beginRun(RunInfo{});
    m_handler->noteOp(91, OpContext{m_writer->intern("aten::mm"), 4, 0, 0, Category::kMath, m_run});
    FakeCuptiRecords r;
    r.addRuntime(kLaunchKernel, 1000, 1100, 9, kTid);
    r.addExternalCorrelation(9, 91);
    r.addKernel("arm_a_kernel", 1200, 1900, 9);
    r.feed(*m_handler);
    m_tracer->setRun(armB);
    m_handler->resolve(4);
    m_tracer->setRun(m_run);
    m_writer->endRun(armB, RunStatus::kComplete);
    const TraceModel a = finishAndRead();
    EXPECT_NE(find(a, EventKind::kKernel, "arm_a_kernel"), nullptr);
    EXPECT_NE(find(a, EventKind::kRuntime, "cudaLaunchKernel"), nullptr);
    const TraceModel b = TraceReader(m_db).loadRun(armB);
    EXPECT_EQ(b.eventCount(), 0u);
}

// A completed buffer is read to CUPTI_ERROR_MAX_LIMIT_REACHED; a buffer whose reading stops on any
// other error (an incomplete record) keeps what was read and counts the rest as lost. Failed CUPTI
// calls and clock fallbacks while capturing are counted too.
TEST_F(CuptiRecordsTest, ABufferThatStopsReadingEarlyAndFailedCallsAreCounted) {
    FakeCuptiRecords records;
    records.addRuntime(kLaunchKernel, 1000, 1100, 1, kTid);
    records.addKernel("read_kernel", 1200, 1900, 1);
    std::vector<CUpti_Activity*> inBuffer = records.pointers();
    auto reader = [&inBuffer](CUptiResult end) {
        return [&inBuffer, end, next = std::size_t{0}](CUpti_Activity** record) mutable {
            if (next == inBuffer.size()) return end;
            *record = inBuffer[next++];
            return CUPTI_SUCCESS;
        };
    };
    m_handler->drainBuffer(reader(CUPTI_ERROR_MAX_LIMIT_REACHED));  // a buffer read to its end
    EXPECT_TRUE(m_handler->counts().losses.empty());
    m_handler->drainBuffer(reader(CUPTI_ERROR_INVALID_KIND));  // stops on an unreadable record
    m_handler->noteCallFailure();
    m_handler->noteClockFallbacks(3);
    m_handler->noteClockFallbacks(0);
    const std::map<std::string, std::int64_t> lost = {{loss::kCuptiUnreadableRecords, 1},
                                                      {loss::kCuptiCallFailures, 1},
                                                      {loss::kCuptiClockFallbacks, 3}};
    EXPECT_EQ(m_handler->counts().losses, lost);
    EXPECT_EQ(m_handler->counts().records, 4);  // both buffers' records were handled
    m_handler->finish();
    const TraceModel t = finishAndRead();
    EXPECT_EQ(storedLosses(t), lost);
}

TEST_F(CuptiRecordsTest, LostRecordsAreCountedNotDropped) {
    FakeCuptiRecords first;
    first.addKernel("no launch seen", 100, 200, 999);     // unmatched correlation
    first.addKernel("zero", 0, 0, 1);                     // start = end = 0
    first.addOtherKind(CUPTI_ACTIVITY_KIND_PC_SAMPLING);  // a kind glueprof does not handle
    first.addMarker(CUPTI_ACTIVITY_FLAG_MARKER_END, 50, 5, "", "", kTid);  // end without start
    first.feed(*m_handler);
    m_handler->noteDropped(7);
    m_handler->noteDropped(0);
    m_handler->noteBufferRefused();
    m_handler->resolve(1);
    FakeCuptiRecords second;
    second.addMarker(CUPTI_ACTIVITY_FLAG_MARKER_START, 300, 6, "never closed", "", kTid);
    second.feed(*m_handler);
    m_handler->noteDropped(3);
    m_handler->finish();

    const std::map<std::string, std::int64_t> expected = {
        {loss::kCuptiUnmatched, 1},       {loss::kCuptiZeroTimestamps, 1},
        {loss::kCuptiUnknownKinds, 1},    {loss::kCuptiUnpairedMarkers, 2},
        {loss::kCuptiDroppedRecords, 10}, {loss::kCuptiBufferLimit, 1}};
    EXPECT_EQ(m_handler->counts().losses, expected);
    const TraceModel t = finishAndRead();
    EXPECT_EQ(storedLosses(t), expected);
}

TEST(CuptiLibraryTest, ABadExplicitPathGivesTheDocumentedMessage) {
    ::setenv("GLUEPROF_CUPTI_PATH", "/nonexistent/libcupti.so", 1);
    ASSERT_EQ(CuptiLibrary::candidates().size(), 1u);
    EXPECT_EQ(CuptiLibrary::candidates()[0].path, "/nonexistent/libcupti.so");
    const CuptiLibrary lib = CuptiLibrary::load();
    ::unsetenv("GLUEPROF_CUPTI_PATH");
    EXPECT_FALSE(lib.ok());
    EXPECT_EQ(
        lib.error().rfind("GLUEPROF_CUPTI_PATH=/nonexistent/libcupti.so cannot be loaded (", 0), 0u)
        << lib.error();
    EXPECT_NE(lib.error().find("or unset it"), std::string::npos);
    const std::vector<CuptiCandidate> searched = CuptiLibrary::candidates();
    EXPECT_EQ(searched.back().path, "libcupti.so");  // the loader path comes last
}

}  // namespace
}  // namespace glueprof::cupti
