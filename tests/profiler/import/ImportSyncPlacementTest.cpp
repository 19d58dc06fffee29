// The rows of tests/profiler/core/SyncPlacementTable.h through the import: each row as a trace
// reader hands it to TraceAssembly (runtime and driver calls on the thread's lane, copies on their
// stream, the synchronization records), read from the run finish() builds.
#include <gtest/gtest.h>

#include <algorithm>

#include "profiler/core/Diagnostics.h"
#include "profiler/import/TraceAssembly.h"
#include "tests/profiler/core/SyncPlacementTable.h"

namespace glueprof {
namespace {

using testing::ApiStep;
using testing::CallKind;
using testing::PlacedWait;
using testing::SyncPlacementRow;

void addStep(TraceAssembly& a, const ApiStep& s) {
    const std::size_t thread = a.hostLane("1", s.thread);
    a.add(thread, EventKind::kRuntime, Category::kNone, testing::callName(s.kind), s.start, s.end)
        .correlation = s.correlation;
    if (testing::isCopy(s.kind)) {
        const bool toHost = s.kind == CallKind::kCopyDtoH;
        Event& copy =
            a.add(a.streamLane(s.device, s.stream), EventKind::kMemcpy, Category::kCopy,
                  toHost ? "Memcpy DtoH (Device -> Pageable)" : "Memcpy HtoD (Pageable -> Device)",
                  testing::deviceStart(s), testing::deviceEnd(s));
        copy.correlation = s.correlation;
        copy.srcKind = toHost ? MemoryKind::kDevice : MemoryKind::kPageable;
        copy.dstKind = toHost ? MemoryKind::kPageable : MemoryKind::kDevice;
    }
    if (testing::isSync(s.kind) || s.kind == CallKind::kStreamWait) {
        SyncRecord sync;
        const bool stream = s.kind == CallKind::kStreamSync;
        const bool wait = s.kind == CallKind::kStreamWait;
        sync.kind = wait     ? SyncRecordKind::kStreamWaitEvent
                    : stream ? SyncRecordKind::kStream
                             : SyncRecordKind::kContext;
        sync.name = syncRecordName(sync.kind);
        sync.startNs = s.waitStart;
        sync.endNs = s.waitEnd;
        sync.correlation = s.correlation;
        sync.device = s.device;
        sync.stream = stream || wait ? s.stream : -1;
        sync.waitedStream = stream ? s.stream : -1;
        a.addSync(sync);
    }
}

class ImportSyncPlacementTest : public ::testing::TestWithParam<SyncPlacementRow> {};

TEST_P(ImportSyncPlacementTest, PlacesTheRowsWaitsByHand) {
    TraceAssembly assembly;
    for (const ApiStep& s : GetParam().steps) addStep(assembly, s);
    const ImportedRun run = std::move(assembly).finish(RunSummary{});
    const auto merged = run.derived.find(diagnosticDetail(DiagnosticId::kDerivedMergedCopySyncs));
    EXPECT_EQ(merged != run.derived.end() ? merged->second : 0, GetParam().merged);
    EXPECT_EQ(testing::placedWaits(run.model), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Table, ImportSyncPlacementTest,
                         ::testing::ValuesIn(testing::syncPlacementRows()),
                         [](const ::testing::TestParamInfo<SyncPlacementRow>& row) {
                             return std::string(row.param.name);
                         });

}  // namespace
}  // namespace glueprof
