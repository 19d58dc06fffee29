#include <gtest/gtest.h>

#include "profiler/core/TextEncoding.h"

namespace glueprof {
namespace {

TEST(TextEncodingTest, ShortenedTextCutsBeforeAUtf8SequenceNotInsideIt) {
    EXPECT_EQ(shortenedText("gemm", 4), "gemm");  // fits: as it is, no "..."
    EXPECT_EQ(shortenedText("gemm_kernel", 4), "gemm...");
    // "é" is two bytes (c3 a9): a cut after its first byte backs up before it.
    EXPECT_EQ(shortenedText("caf\xc3\xa9_kernel", 4), "caf...");
    EXPECT_EQ(shortenedText("caf\xc3\xa9_kernel", 5), "caf\xc3\xa9...");
    // A four-byte sequence cut after any of its bytes.
    const std::string emoji = "ab\xf0\x9f\x98\x80z";
    for (std::size_t cut = 3; cut <= 5; ++cut) EXPECT_EQ(shortenedText(emoji, cut), "ab...");
    EXPECT_EQ(firstInvalidUtf8(shortenedText(emoji, 4)), -1);
}

}  // namespace
}  // namespace glueprof
