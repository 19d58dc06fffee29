#pragma once
// The one table for the sync placement rule (profiler/core/SyncPlacement.h). Each row is what one
// or two host threads did, as API calls with their correlation ids, and every sync event that must
// come out of it, with times worked out by hand. The same rows drive the rule itself
// (tests/profiler/core/SyncPlacementTest.cpp), glueprof's CUPTI capture through FakeCuptiRecords
// (tests/profiler/cupti/CuptiSyncPlacementTest.cpp) and the import through TraceAssembly
// (tests/profiler/import/ImportSyncPlacementTest.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "profiler/core/BlockingCopy.h"
#include "profiler/core/TraceModel.h"

namespace glueprof::testing {

enum class CallKind {
    kLaunch,        // cudaLaunchKernel: the thread queues work
    kDriverLaunch,  // cuLaunchKernel called directly (as Triton launches): a driver call only
    kDriverOf,      // the driver call a runtime call makes: inside it, with its correlation id
    kCopyDtoH,      // cudaMemcpyAsync from the device into pageable memory: a blocking copy
    kCopyHtoD,      // cudaMemcpy from pageable memory to the device: a blocking copy
    kStreamSync,    // cudaStreamSynchronize, with its synchronization record
    kDeviceSync,    // cudaDeviceSynchronize, with its synchronization record
    kStreamWait,    // cudaStreamWaitEvent, with its record: the stream waits, the host does not
};

struct ApiStep {
    CallKind kind;
    std::int64_t thread;
    std::int64_t start;  // the API call
    std::int64_t end;
    std::int64_t correlation;
    std::int64_t waitStart = 0;  // syncs: their synchronization record, inside the call
    std::int64_t waitEnd = 0;
    std::int64_t device = 0;  // copies and syncs: where their stream is
    std::int64_t stream = 7;
    // Live capture: the API call's record arrives one buffer flush after the copy's or the sync's
    // (CUPTI delivers them in separate buffers); a trace file has them all at once.
    bool callLate = false;
};

inline bool isCopy(CallKind k) { return k == CallKind::kCopyDtoH || k == CallKind::kCopyHtoD; }
inline bool isSync(CallKind k) { return k == CallKind::kStreamSync || k == CallKind::kDeviceSync; }
inline bool anyLate(const std::vector<ApiStep>& steps) {
    return std::any_of(steps.begin(), steps.end(), [](const ApiStep& s) { return s.callLate; });
}

// The copy on the device: the middle half of its API call (where is of no matter to the rule).
inline std::int64_t deviceStart(const ApiStep& s) { return s.start + (s.end - s.start) / 4; }
inline std::int64_t deviceEnd(const ApiStep& s) { return s.end - (s.end - s.start) / 4; }

// A sync event on a host thread, as the rule places it.
struct PlacedWait {
    std::int64_t thread;
    std::string name;
    std::int64_t start;
    std::int64_t end;
    bool operator==(const PlacedWait& o) const {
        return std::tie(thread, name, start, end) == std::tie(o.thread, o.name, o.start, o.end);
    }
    bool operator<(const PlacedWait& o) const {
        return std::tie(thread, start, end, name) < std::tie(o.thread, o.start, o.end, o.name);
    }
    friend std::ostream& operator<<(std::ostream& out, const PlacedWait& w) {
        return out << "{thread " << w.thread << ", " << w.name << ", " << w.start << ", " << w.end
                   << "}";
    }
};

// Every sync event of a run, where the capture or the import placed it: each on a host thread's
// lane, in (thread, start) order.
inline std::vector<PlacedWait> placedWaits(const TraceModel& t) {
    std::vector<PlacedWait> waits;
    for (std::size_t l = 0; l < t.lanes().size(); ++l) {
        for (const Event& e : t.eventsOnLane(l)) {
            if (e.kind != EventKind::kSync) continue;
            EXPECT_EQ(t.lanes()[l].kind, LaneKind::kHostThread);
            waits.push_back(
                PlacedWait{t.lanes()[l].threadOrStream, t.name(e.name), e.startNs, e.endNs});
        }
    }
    std::sort(waits.begin(), waits.end());
    return waits;
}

// The call's name as torch.profiler (Kineto) and Nsight Systems write it.
inline const char* callName(CallKind kind) {
    switch (kind) {
        case CallKind::kLaunch:
            return "cudaLaunchKernel";
        case CallKind::kDriverLaunch:
            return "cuLaunchKernel";
        case CallKind::kDriverOf:
            return "cuDriverCall";
        case CallKind::kCopyDtoH:
            return "cudaMemcpyAsync";
        case CallKind::kCopyHtoD:
            return "cudaMemcpy";
        case CallKind::kStreamSync:
            return "cudaStreamSynchronize";
        case CallKind::kDeviceSync:
            return "cudaDeviceSynchronize";
        case CallKind::kStreamWait:
            return "cudaStreamWaitEvent";
    }
    return "unknown";
}

// The name of the sync event a wait step makes (either source names them so).
inline std::string waitName(CallKind k) {
    switch (k) {
        case CallKind::kCopyDtoH:
            return names::kBlockingDtoHCopy;
        case CallKind::kCopyHtoD:
            return names::kBlockingHtoDCopy;
        case CallKind::kStreamSync:
            return "cudaStreamSynchronize";
        case CallKind::kDeviceSync:
            return "cudaDeviceSynchronize";
        default:
            return "";
    }
}

struct SyncPlacementRow {
    const char* name;  // the test's name
    std::vector<ApiStep> steps;
    std::vector<PlacedWait> expected;  // every sync event, by thread, then start
    std::int64_t merged;               // host syncs folded into a copy's sync
};

inline const std::vector<SyncPlacementRow>& syncPlacementRows() {
    using K = CallKind;
    static const std::vector<SyncPlacementRow> rows = {
        // .item() of a tensor copied into pageable memory: one wait, from the copy call's start
        // to the end of the sync record (1490, not its call's 1500).
        {"ItemsCopyThenStreamSyncAreOneSyncPoint",
         {{K::kCopyDtoH, 1, 1000, 1300, 10}, {K::kStreamSync, 1, 1310, 1500, 11, 1320, 1490}},
         {{1, names::kBlockingDtoHCopy, 1000, 1490}},
         1},
        // The thread queued a kernel after the copy returned: the sync waits for that kernel.
        {"ALaunchBetweenKeepsTwoSyncPoints",
         {{K::kCopyDtoH, 1, 1000, 1300, 10},
          {K::kLaunch, 1, 1310, 1350, 11},
          {K::kStreamSync, 1, 1360, 1600, 12, 1370, 1590}},
         {{1, names::kBlockingDtoHCopy, 1000, 1300}, {1, "cudaStreamSynchronize", 1370, 1590}},
         0},
        // The same with a launch through the driver API alone (Triton's cuLaunchKernel).
        {"ADriverOnlyLaunchBetweenKeepsTwoSyncPoints",
         {{K::kCopyDtoH, 1, 1000, 1300, 10},
          {K::kDriverLaunch, 1, 1310, 1350, 11},
          {K::kStreamSync, 1, 1360, 1600, 12, 1370, 1590}},
         {{1, names::kBlockingDtoHCopy, 1000, 1300}, {1, "cudaStreamSynchronize", 1370, 1590}},
         0},
        // The driver calls the copy and the sync make themselves (cuStreamSynchronize starts
        // between the copy's end and the sync record's start) are no work in between.
        {"TheirOwnDriverCallsDoNotSeparateACopyAndItsSync",
         {{K::kCopyDtoH, 1, 1000, 1300, 10},
          {K::kDriverOf, 1, 1010, 1290, 10},
          {K::kStreamSync, 1, 1310, 1500, 11, 1320, 1490},
          {K::kDriverOf, 1, 1315, 1495, 11}},
         {{1, names::kBlockingDtoHCopy, 1000, 1490}},
         1},
        // A second sync waits again after the first returned: its own sync point.
        {"OnlyTheFirstSyncAfterACopyExtendsIt",
         {{K::kCopyDtoH, 1, 1000, 1300, 10},
          {K::kStreamSync, 1, 1310, 1500, 11, 1320, 1490},
          {K::kDeviceSync, 1, 1510, 1700, 12, 1520, 1690}},
         {{1, names::kBlockingDtoHCopy, 1000, 1490}, {1, "cudaDeviceSynchronize", 1520, 1690}},
         1},
        {"ASyncAfterTwoCopiesExtendsTheLaterOne",
         {{K::kCopyDtoH, 1, 1000, 1300, 10},
          {K::kCopyDtoH, 1, 1310, 1600, 11},
          {K::kStreamSync, 1, 1610, 1800, 12, 1620, 1790}},
         {{1, names::kBlockingDtoHCopy, 1000, 1300}, {1, names::kBlockingDtoHCopy, 1310, 1790}},
         1},
        {"RepeatedItemsAreOneSyncPointEach",
         {{K::kCopyDtoH, 1, 1000, 1300, 10},
          {K::kStreamSync, 1, 1310, 1500, 11, 1320, 1490},
          {K::kCopyDtoH, 1, 1510, 1800, 12},
          {K::kStreamSync, 1, 1810, 2000, 13, 1820, 1990}},
         {{1, names::kBlockingDtoHCopy, 1000, 1490}, {1, names::kBlockingDtoHCopy, 1510, 1990}},
         2},
        // Another thread's wait is not this thread's copy's.
        {"ASyncOnAnotherThreadIsItsOwn",
         {{K::kCopyDtoH, 1, 1000, 1300, 10}, {K::kStreamSync, 2, 1310, 1500, 11, 1320, 1490}},
         {{1, names::kBlockingDtoHCopy, 1000, 1300}, {2, "cudaStreamSynchronize", 1320, 1490}},
         0},
        {"ASyncBeforeACopyIsNotFoldedIntoIt",
         {{K::kStreamSync, 1, 1000, 1200, 10, 1010, 1190}, {K::kCopyDtoH, 1, 1210, 1500, 11}},
         {{1, "cudaStreamSynchronize", 1010, 1190}, {1, names::kBlockingDtoHCopy, 1210, 1500}},
         0},
        // A synchronous copy from pageable memory blocks too, and a sync right after is its wait.
        {"ASynchronousPageableHtoDCopyIsExtendedToo",
         {{K::kCopyHtoD, 1, 1000, 1300, 10}, {K::kStreamSync, 1, 1310, 1500, 11, 1320, 1490}},
         {{1, names::kBlockingHtoDCopy, 1000, 1490}},
         1},
        // "Right after" includes the instant the copy returns.
        {"ASyncStartingAsTheCopyReturnsExtendsIt",
         {{K::kCopyDtoH, 1, 1000, 1300, 10}, {K::kDeviceSync, 1, 1300, 1500, 11, 1300, 1490}},
         {{1, names::kBlockingDtoHCopy, 1000, 1490}},
         1},
        // Where live capture differs from a trace file. A sync record whose call comes a flush
        // later waits for it, and is placed then as if both had come together.
        {"ASyncRecordWhoseCallArrivesAFlushLateIsPlacedOnItsThread",
         {{K::kLaunch, 1, 900, 950, 9},
          {K::kStreamSync, 1, 1000, 1200, 10, 1010, 1190, 0, 7, true}},
         {{1, "cudaStreamSynchronize", 1010, 1190}},
         0},
        // A copy and the sync right after it whose calls both come late are one sync point still.
        {"ACopyAndItsSyncWhoseCallsArriveLateAreStillOneSyncPoint",
         {{K::kCopyDtoH, 1, 1000, 1300, 10, 0, 0, 0, 7, true},
          {K::kStreamSync, 1, 1310, 1500, 11, 1320, 1490, 0, 7, true}},
         {{1, names::kBlockingDtoHCopy, 1000, 1490}},
         1},
        // A stream waits for an event: a marker on that stream, no host wait; the host's later
        // copy and sync are one sync point.
        {"AStreamWaitIsNoHostWait",
         {{K::kStreamWait, 1, 900, 920, 9, 905, 910, 0, 9},
          {K::kCopyDtoH, 1, 1000, 1300, 10},
          {K::kStreamSync, 1, 1310, 1500, 11, 1320, 1490}},
         {{1, names::kBlockingDtoHCopy, 1000, 1490}},
         1},
        // Two GPUs: each thread's copy and sync on its own device's stream.
        {"OnTwoDevicesEachThreadsCopyAndSyncAreOneSyncPoint",
         {{K::kCopyDtoH, 1, 1000, 1300, 10, 0, 0, 0, 7},
          {K::kCopyDtoH, 2, 1005, 1305, 20, 0, 0, 1, 8},
          {K::kStreamSync, 1, 1310, 1500, 11, 1320, 1490, 0, 7},
          {K::kStreamSync, 2, 1315, 1505, 21, 1325, 1495, 1, 8}},
         {{1, names::kBlockingDtoHCopy, 1000, 1490}, {2, names::kBlockingDtoHCopy, 1005, 1495}},
         2},
    };
    return rows;
}

}  // namespace glueprof::testing
