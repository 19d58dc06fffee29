// The sync placement rule itself (profiler/core/SyncPlacement.h) on the rows of
// SyncPlacementTable.h: each thread's waits and calls straight from the row.
#include "profiler/core/SyncPlacement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tests/profiler/core/SyncPlacementTable.h"

namespace glueprof {
namespace {

using testing::ApiStep;
using testing::PlacedWait;
using testing::SyncPlacementRow;

struct ThreadWaits {
    std::vector<HostWait> waits;
    std::vector<std::string> names;
    std::vector<HostCall> calls;
};

class SyncPlacementTest : public ::testing::TestWithParam<SyncPlacementRow> {};

TEST_P(SyncPlacementTest, PlacesTheRowsWaitsByHand) {
    std::map<std::int64_t, ThreadWaits> threads;
    for (const ApiStep& s : GetParam().steps) {
        ThreadWaits& t = threads[s.thread];
        t.calls.push_back(HostCall{s.start, s.correlation});
        if (testing::isCopy(s.kind)) {
            t.waits.push_back(HostWait{s.start, s.end, s.correlation, true});
            t.names.push_back(testing::waitName(s.kind));
        } else if (testing::isSync(s.kind)) {
            t.waits.push_back(HostWait{s.waitStart, s.waitEnd, s.correlation, false});
            t.names.push_back(testing::waitName(s.kind));
        }
    }
    std::vector<PlacedWait> placed;
    std::int64_t merged = 0;
    for (auto& [thread, t] : threads) {
        const std::vector<std::size_t> extended = copiesExtendedBySyncs(t.waits, t.calls);
        ASSERT_EQ(extended.size(), t.waits.size());
        std::vector<bool> folded(t.waits.size(), false);
        for (std::size_t k = 0; k < extended.size(); ++k) {
            if (extended[k] == kNoCopy) continue;
            ASSERT_TRUE(t.waits[extended[k]].blockingCopy);
            ASSERT_FALSE(t.waits[k].blockingCopy);
            t.waits[extended[k]].endNs = std::max(t.waits[extended[k]].endNs, t.waits[k].endNs);
            folded[k] = true;
            ++merged;
        }
        for (std::size_t k = 0; k < t.waits.size(); ++k) {
            if (!folded[k])
                placed.push_back(
                    PlacedWait{thread, t.names[k], t.waits[k].startNs, t.waits[k].endNs});
        }
    }
    std::sort(placed.begin(), placed.end());
    EXPECT_EQ(placed, GetParam().expected);
    EXPECT_EQ(merged, GetParam().merged);
}

INSTANTIATE_TEST_SUITE_P(Table, SyncPlacementTest,
                         ::testing::ValuesIn(testing::syncPlacementRows()),
                         [](const ::testing::TestParamInfo<SyncPlacementRow>& row) {
                             return std::string(row.param.name);
                         });

// No copies, or no syncs: nothing to fold.
TEST(SyncPlacementRule, WaitsOfOneKindStandAlone) {
    const std::vector<HostWait> copies = {{0, 10, 1, true}, {20, 30, 2, true}};
    const std::vector<HostWait> syncs = {{0, 10, 1, false}, {20, 30, 2, false}};
    for (const auto& waits : {copies, syncs}) {
        const std::vector<std::size_t> extended = copiesExtendedBySyncs(waits, {});
        EXPECT_EQ(extended, std::vector<std::size_t>(2, kNoCopy));
    }
}

}  // namespace
}  // namespace glueprof
