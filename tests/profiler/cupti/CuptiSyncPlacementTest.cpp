// The rows of tests/profiler/core/SyncPlacementTable.h through glueprof's CUPTI capture: each row
// as zero-filled real CUPTI records (FakeCuptiRecords), one flush of the production RecordHandler
// into a real store, read back with TraceReader.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "profiler/core/TraceReader.h"
#include "profiler/cupti/RecordHandler.h"
#include "profiler/cupti/testing/FakeCuptiRecords.h"
#include "tests/profiler/core/SyncPlacementTable.h"

namespace glueprof::cupti {
namespace {

namespace fs = std::filesystem;
using testing::ApiStep;
using testing::CallKind;
using testing::PlacedWait;
using testing::SyncPlacementRow;

constexpr std::uint32_t kStream = 7;

// Runtime callback ids of this test, named by its apiName.
std::uint32_t cbidOf(CallKind kind) { return static_cast<std::uint32_t>(kind) + 1; }

void addStep(FakeCuptiRecords& r, const ApiStep& s) {
    const auto tid = static_cast<std::uint32_t>(s.thread);
    const auto correlation = static_cast<std::uint32_t>(s.correlation);
    if (s.kind == CallKind::kDriverLaunch || s.kind == CallKind::kDriverOf) {
        r.addDriver(cbidOf(s.kind), s.start, s.end, correlation, tid);
        return;
    }
    r.addRuntime(cbidOf(s.kind), s.start, s.end, correlation, tid);
    switch (s.kind) {
        case CallKind::kCopyDtoH:
            r.addMemcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 4, testing::deviceStart(s),
                        testing::deviceEnd(s), correlation, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, true, kStream);
            break;
        case CallKind::kCopyHtoD:
            r.addMemcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4, testing::deviceStart(s),
                        testing::deviceEnd(s), correlation, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, false, kStream);
            break;
        case CallKind::kStreamSync:
            r.addSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, s.waitStart,
                      s.waitEnd, correlation, kStream);
            break;
        case CallKind::kDeviceSync:
            r.addSync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, s.waitStart,
                      s.waitEnd, correlation, kStream);
            break;
        default:
            break;
    }
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
        env.apiName = [](bool driver, std::uint32_t cbid) {
            return std::string(driver ? "cu" : "cuda") + " call " + std::to_string(cbid);
        };
        return env;
    }
    // Every sync event on a host thread's lane.
    std::vector<PlacedWait> storedWaits() {
        m_writer->recordStep(StepRecord{m_run, StepInfo{3, 0, 100000, false, 1, 0.0, 0}});
        m_writer->endRun(m_run, RunStatus::kComplete);
        m_writer->close();
        return testing::placedWaits(TraceReader(m_db).loadRun(m_run));
    }

    fs::path m_dir;
    std::string m_db;
    std::unique_ptr<TraceWriter> m_writer;
    RunId m_run = 0;
    std::map<std::int64_t, LaneId> m_threadLanes;
};

TEST_P(CuptiSyncPlacementTest, PlacesTheRowsWaitsByHand) {
    FakeCuptiRecords records;
    for (const ApiStep& s : GetParam().steps) addStep(records, s);
    RecordHandler handler(environment());
    records.feed(handler);
    handler.resolve(3);
    EXPECT_EQ(handler.counts().mergedSyncs, GetParam().merged);
    // Every copy of the table blocks the host; every sync call has its record: those merged into
    // a copy are no sync of their own.
    std::int64_t copies = 0;
    std::int64_t syncCalls = 0;
    for (const ApiStep& s : GetParam().steps) {
        copies += testing::isCopy(s.kind) ? 1 : 0;
        syncCalls += testing::isSync(s.kind) ? 1 : 0;
    }
    EXPECT_EQ(handler.counts().blockingCopies, copies);
    EXPECT_EQ(handler.counts().syncs, syncCalls - GetParam().merged);
    EXPECT_TRUE(handler.counts().losses.empty());
    EXPECT_EQ(storedWaits(), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Table, CuptiSyncPlacementTest,
                         ::testing::ValuesIn(testing::syncPlacementRows()),
                         [](const ::testing::TestParamInfo<SyncPlacementRow>& row) {
                             return std::string(row.param.name);
                         });

}  // namespace
}  // namespace glueprof::cupti
