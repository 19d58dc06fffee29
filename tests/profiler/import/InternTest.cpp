// TraceAssembly::intern: one id per distinct name, the same id each time, through the cache of
// recent names (a slot by length and the first, middle and last 8 bytes): names that share all
// of those still get ids of their own, and invalid UTF-8 maps to its replacement's id.
#include <gtest/gtest.h>

#include <string>

#include "profiler/import/TraceAssembly.h"

namespace glueprof {
namespace {

TEST(Intern, NamesThatShareTheirSlotKeepIdsOfTheirOwn) {
    TraceAssembly assembly;
    // Same length, same first, middle and last 8 bytes: one slot, two names.
    const std::string a = "void kernel<float, 1>(ABCD) [middle!] tail<A>(int)";
    std::string b = a;
    b[10] = 'X';  // outside the three sampled windows
    ASSERT_EQ(a.size(), b.size());
    const StringId idA = assembly.intern(a);
    const StringId idB = assembly.intern(b);
    EXPECT_NE(idA, idB);
    for (int round = 0; round < 3; ++round) {  // alternating: each evicts the other from the slot
        EXPECT_EQ(assembly.intern(a), idA);
        EXPECT_EQ(assembly.intern(b), idB);
    }
    EXPECT_EQ(assembly.intern(std::string(a)), idA);  // by content, not by address
    EXPECT_EQ(assembly.intern("op"), assembly.intern("op"));
    EXPECT_NE(assembly.intern("op"), assembly.intern("oq"));
    EXPECT_NE(assembly.intern(""), assembly.intern("op"));
}

TEST(Intern, InvalidUtf8IsTheIdOfItsReplacementEveryTime) {
    TraceAssembly assembly;
    const std::string bad = "name\xff";
    const StringId first = assembly.intern(bad);
    EXPECT_EQ(assembly.intern(bad), first);
    EXPECT_EQ(assembly.intern(validUtf8(bad)), first);
}

}  // namespace
}  // namespace glueprof
