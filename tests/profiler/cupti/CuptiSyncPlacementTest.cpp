// The rows of tests/profiler/core/SyncPlacementTable.h through glueprof's CUPTI capture: each row
// as zero-filled real CUPTI records (FakeCuptiRecords), flushed through the production
// RecordHandler into a real store and read back with TraceReader — the calls a row marks late in a
// second flush, as CUPTI delivers them in another buffer. And the one-assembly check: the same row
// written as the Kineto JSON torch.profiler would write, imported by the real reader, gives the
// same run — lanes, events, correlations, nesting and flags.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "profiler/core/RuntimeCallNames.h"
#include "profiler/core/TraceReader.h"
#include "profiler/cupti/RecordHandler.h"
#include "profiler/cupti/testing/FakeCuptiRecords.h"
#include "profiler/import/TraceImporter.h"
#include "tests/profiler/core/SyncPlacementTable.h"

namespace glueprof::cupti {
namespace {

namespace fs = std::filesystem;
using testing::ApiStep;
using testing::CallKind;
using testing::PlacedWait;
using testing::SyncPlacementRow;

// Runtime callback ids of this test, named by its apiName as CUPTI names them (with the version
// suffix its callback names carry; the syncs are named without it).
std::uint32_t cbidOf(CallKind kind) { return static_cast<std::uint32_t>(kind) + 1; }

bool isDriver(CallKind kind) {
    return kind == CallKind::kDriverLaunch || kind == CallKind::kDriverOf;
}

std::string cuptiCallName(bool driver, std::uint32_t cbid) {
    const auto kind = static_cast<CallKind>(cbid - 1);
    const std::string name = testing::callName(kind);
    return driver ? name : name + (kind == CallKind::kLaunch ? "_v7000" : "_v3020");
}

// The row's records: its calls into `late` where the row says they come a flush later.
void addStep(FakeCuptiRecords& now, FakeCuptiRecords& late, const ApiStep& s) {
    const auto tid = static_cast<std::uint32_t>(s.thread);
    const auto correlation = static_cast<std::uint32_t>(s.correlation);
    const auto stream = static_cast<std::uint32_t>(s.stream);
    const auto device = static_cast<std::uint32_t>(s.device);
    FakeCuptiRecords& calls = s.callLate ? late : now;
    if (isDriver(s.kind)) {
        calls.addDriver(cbidOf(s.kind), s.start, s.end, correlation, tid);
        return;
    }
    calls.addRuntime(cbidOf(s.kind), s.start, s.end, correlation, tid);
    switch (s.kind) {
        case CallKind::kCopyDtoH:
            now.addMemcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 4, testing::deviceStart(s),
                          testing::deviceEnd(s), correlation, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                          CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, true, stream, device);
            break;
        case CallKind::kCopyHtoD:
            now.addMemcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4, testing::deviceStart(s),
                          testing::deviceEnd(s), correlation, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                          CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, false, stream, device);
            break;
        case CallKind::kStreamSync:
            now.addSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, s.waitStart,
                        s.waitEnd, correlation, stream);
            break;
        case CallKind::kDeviceSync:
            now.addSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, s.waitStart,
                        s.waitEnd, correlation, stream);
            break;
        case CallKind::kStreamWait:
            now.addSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, s.waitStart,
                        s.waitEnd, correlation, stream);
            break;
        default:
            break;
    }
}

// Microseconds as Kineto writes them, to the nanosecond.
std::string us(std::int64_t ns) { return fmt::format("{}.{:03d}", ns / 1000, ns % 1000); }

// The row as torch.profiler's Kineto JSON has it: runtime and driver calls on the thread, copies
// and sync records on their device's stream, linked by correlation ids.
std::string kinetoJson(const SyncPlacementRow& row) {
    std::string events;
    const auto event = [&events](const std::string& cat, const std::string& name,
                                 const std::string& pid, std::int64_t tid, std::int64_t start,
                                 std::int64_t end, const std::string& args) {
        events += fmt::format(
            "{}{{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, "
            "\"ts\": {}, \"dur\": {}, \"args\": {{{}}}}}",
            events.empty() ? "" : ",\n", cat, name, pid, tid, us(start), us(end - start), args);
    };
    for (const ApiStep& s : row.steps) {
        event(isDriver(s.kind) ? "cuda_driver" : "cuda_runtime", testing::callName(s.kind), "1",
              s.thread, s.start, s.end, fmt::format("\"correlation\": {}", s.correlation));
        const std::string onStream =
            fmt::format("\"device\": {}, \"stream\": {}, \"correlation\": {}", s.device, s.stream,
                        s.correlation);
        const std::string device = std::to_string(s.device);
        switch (s.kind) {
            case CallKind::kCopyDtoH:
                event("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", device, s.stream,
                      testing::deviceStart(s), testing::deviceEnd(s), onStream + ", \"bytes\": 4");
                break;
            case CallKind::kCopyHtoD:
                event("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", device, s.stream,
                      testing::deviceStart(s), testing::deviceEnd(s), onStream + ", \"bytes\": 4");
                break;
            case CallKind::kStreamSync:
                event("cuda_sync", "Stream Sync", device, s.stream, s.waitStart, s.waitEnd,
                      onStream);
                break;
            case CallKind::kDeviceSync:
                event("cuda_sync", "Context Sync", device, s.stream, s.waitStart, s.waitEnd,
                      fmt::format("\"device\": {}, \"stream\": -1, \"correlation\": {}", s.device,
                                  s.correlation));
                break;
            case CallKind::kStreamWait:
                event("cuda_sync", "Stream Wait Event", device, s.stream, s.waitStart, s.waitEnd,
                      onStream);
                break;
            default:
                break;
        }
    }
    return "{\"schemaVersion\": 1, \"traceEvents\": [\n" + events + "\n]}\n";
}

class CuptiSyncPlacementTest : public ::testing::TestWithParam<SyncPlacementRow> {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() / ("glueprof-cupti-sync-" + std::string(GetParam().name));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_db = (m_dir / "trace.sqlite").string();
        m_writer = std::make_unique<TraceWriter>(m_db);
        m_run = m_writer->beginRun(RunInfo{});
    }
    void TearDown() override {
        m_writer.reset();
        fs::remove_all(m_dir);
    }
    CaptureEnvironment environment() {
        CaptureEnvironment env;
        env.writer = m_writer.get();
        env.currentRun = [this] { return m_run; };
        env.laneOfThread = [this](RunId run, std::int64_t tid) {
            auto [it, added] = m_threadLanes.try_emplace(tid, 0);
            if (added) {
                it->second = m_writer->addLane(run, LaneKind::kHostThread,
                                               "thread " + std::to_string(tid), -1, tid);
            }
            return it->second;
        };
        env.apiName = cuptiCallName;
        return env;
    }
    // The row through the capture: the records, then the late calls a flush later.
    CaptureCounts capture() {
        FakeCuptiRecords now;
        FakeCuptiRecords late;
        for (const ApiStep& s : GetParam().steps) addStep(now, late, s);
        RecordHandler handler(environment());
        now.feed(handler);
        handler.resolve(3);
        if (late.size() > 0) {
            late.feed(handler);
            handler.resolve(3);
        }
        return handler.counts();
    }
    TraceModel storedRun() {
        m_writer->recordStep(StepRecord{m_run, StepInfo{3, 0, 100000, false, 1, 0.0, 0}});
        m_writer->endRun(m_run, RunStatus::kComplete);
        m_writer->close();
        return TraceReader(m_db).loadRun(m_run);
    }

    fs::path m_dir;
    std::string m_db;
    std::unique_ptr<TraceWriter> m_writer;
    RunId m_run = 0;
    std::map<std::int64_t, LaneId> m_threadLanes;
};

TEST_P(CuptiSyncPlacementTest, PlacesTheRowsWaitsByHand) {
    const CaptureCounts counts = capture();
    EXPECT_EQ(counts.mergedSyncs, GetParam().merged);
    // Every copy of the table blocks the host; every sync call has its record: those merged into
    // a copy are no sync of their own.
    std::int64_t copies = 0;
    std::int64_t syncCalls = 0;
    for (const ApiStep& s : GetParam().steps) {
        copies += testing::isCopy(s.kind) ? 1 : 0;
        syncCalls += testing::isSync(s.kind) ? 1 : 0;
    }
    EXPECT_EQ(counts.blockingCopies, copies);
    EXPECT_EQ(counts.syncs, syncCalls - GetParam().merged);
    EXPECT_TRUE(counts.losses.empty());
    EXPECT_EQ(testing::placedWaits(storedRun()), GetParam().expected);
}

// An event as both sources must have it: runtime calls by their name without CUPTI's version
// suffix, copies by their memory kinds (each source names copies its own way), the rest by name.
using EventKey = std::tuple<int, std::string, std::int64_t, std::int64_t, std::int64_t, int, int,
                            int, std::int32_t>;
// A lane by what it is: a host thread, or a device's stream with its name (each source names its
// host threads its own way).
using LaneKey = std::tuple<int, std::int64_t, std::int64_t, std::string>;

std::map<LaneKey, std::vector<EventKey>> eventsByLane(const TraceModel& t) {
    std::map<LaneKey, std::vector<EventKey>> lanes;
    for (std::size_t l = 0; l < t.lanes().size(); ++l) {
        const Lane& lane = t.lanes()[l];
        const bool host = lane.kind == LaneKind::kHostThread;
        std::vector<EventKey>& events =
            lanes[LaneKey{static_cast<int>(lane.kind), host ? -1 : lane.device, lane.threadOrStream,
                          host ? std::string() : lane.name}];
        for (const Event& e : t.eventsOnLane(l)) {
            std::string name(t.name(e.name));
            if (e.kind == EventKind::kRuntime) name = std::string(runtimeCallBaseName(name));
            if (e.kind == EventKind::kMemcpy) name = "copy";
            const int category = e.kind == EventKind::kSync || e.kind == EventKind::kMarker
                                     ? static_cast<int>(e.category)
                                     : -1;
            events.emplace_back(static_cast<int>(e.kind), name, e.startNs, e.endNs, e.correlation,
                                static_cast<int>(e.srcKind), static_cast<int>(e.dstKind), category,
                                static_cast<std::int32_t>(e.flags));
        }
    }
    return lanes;
}

TEST_P(CuptiSyncPlacementTest, TheCaptureAndTheImportOfTheSameRowAssembleTheSameRun) {
    capture();
    const TraceModel captured = storedRun();
    const std::string json = (m_dir / "row.pt.trace.json").string();
    std::ofstream(json) << kinetoJson(GetParam());
    const ImportedRun imported = readTrace(json, ImportOptions{});
    EXPECT_GE(captured.eventCount(), GetParam().steps.size());  // a call each, at least
    const auto fromCapture = eventsByLane(captured);
    const auto fromImport = eventsByLane(imported.model);
    EXPECT_EQ(fromCapture.size(), fromImport.size());
    for (const auto& [lane, events] : fromImport) {
        const auto other = fromCapture.find(lane);
        ASSERT_NE(other, fromCapture.end())
            << "lane kind " << std::get<0>(lane) << " device " << std::get<1>(lane) << " "
            << std::get<2>(lane) << " is not in the captured run";
        EXPECT_EQ(other->second, events)
            << "lane kind " << std::get<0>(lane) << " " << std::get<2>(lane);
    }
}

INSTANTIATE_TEST_SUITE_P(Table, CuptiSyncPlacementTest,
                         ::testing::ValuesIn(testing::syncPlacementRows()),
                         [](const ::testing::TestParamInfo<SyncPlacementRow>& row) {
                             return std::string(row.param.name);
                         });

}  // namespace
}  // namespace glueprof::cupti
