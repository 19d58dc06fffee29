#include <gtest/gtest.h>

#include <string>

#include "analyzers/KernelBreakdown.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

using testing_units::kUs;

// Twelve computation kernels k1..k12 of 12, 11, ..., 1 us back to back on stream 7 from 0, and a
// copy [5, 20) us on stream 9 under the first two: HTA's running sums 12, 23, ..., 72, 75, 77,
// 78 have their 0.8 quantile at 72 + 0.8 x 3 = 74.4, so the 10th to 12th names (3 + 2 + 1 us)
// fold into "others". By type: computation alone 78 - 15 = 63 us, the copy under computation 15.
TEST(KernelBreakdownTest, TypesAndTheirOverlapAndTheKernelsPastHtasCutFoldIntoOthers) {
    TraceModelBuilder b;
    const std::size_t s7 = b.addLane(LaneKind::kCudaStream, "stream 7", 0, 7);
    const std::size_t s9 = b.addLane(LaneKind::kCudaStream, "stream 9", 0, 9);
    TimestampNs at = 0;
    for (int k = 12; k >= 1; --k) {
        b.addEvent(s7, EventKind::kKernel, Category::kNone, "k" + std::to_string(13 - k), at * kUs,
                   (at + k) * kUs, 0);
        at += k;
    }
    b.addEvent(s9, EventKind::kMemcpy, Category::kCopy, "Memcpy HtoD (Pinned -> Device)", 5 * kUs,
               20 * kUs, 0);
    const KernelBreakdownResult r = analyzeKernelBreakdown(std::move(b).build());
    ASSERT_EQ(r.byType.size(), 2u);
    EXPECT_EQ(r.byType[0].type, "COMPUTATION");
    EXPECT_EQ(r.byType[0].ns, 63 * kUs);
    EXPECT_EQ(r.byType[1].type, "COMPUTATION overlapping MEMORY");
    EXPECT_EQ(r.byType[1].ns, 15 * kUs);
    EXPECT_DOUBLE_EQ(r.byType[0].percent, 100.0 * 63 / 78);
    // Largest first within each type: k1..k7, others (6 us), k8, k9; then the copy.
    ASSERT_EQ(r.kernels.size(), 11u);
    EXPECT_EQ(r.kernels[0].name, "k1");
    EXPECT_EQ(r.kernels[7].name, "others");
    EXPECT_EQ(r.kernels[7].ns, 6 * kUs);
    EXPECT_EQ(r.kernels[7].count, 3);
    EXPECT_EQ(r.kernels[9].name, "k9");
    EXPECT_EQ(r.kernels[10].type, "MEMORY");
    EXPECT_EQ(r.kernels[10].ns, 15 * kUs);
}

}  // namespace
}  // namespace glueprof
