#include <gtest/gtest.h>

#include "profiler/core/CountText.h"

namespace glueprof {
namespace {

TEST(CountTextTest, WholeNumbersInFullAndFractionsToSixSignificantDigits) {
    EXPECT_EQ(countText(7340032.0), "7340032");  // offload bytes per step: never 7.34003e+06
    EXPECT_EQ(countText(0.0), "0");
    EXPECT_EQ(countText(-25.0), "-25");
    EXPECT_EQ(countText(760.5), "760.5");  // a median of two counts
    EXPECT_EQ(countText(1234.5678), "1234.57");
    EXPECT_EQ(countText(1.0 / 3.0), "0.333333");
    EXPECT_EQ(countText(0.000001), "0.000001");
    EXPECT_EQ(countText(12345678.25), "12345678.2");
}

}  // namespace
}  // namespace glueprof
