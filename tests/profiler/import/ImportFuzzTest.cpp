// A seeded mutation fuzzer over both readers, bounded to a fixed number of inputs (~10 s here):
// every mutant of a real trace either imports or is refused with an input error — never a crash,
// a hang or another exception. The seed is fixed, so a failure reproduces; GLUEPROF_FUZZ_SEED and
// GLUEPROF_FUZZ_ITERATIONS explore further by hand.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "profiler/core/Error.h"
#include "profiler/import/TraceImporter.h"

#include "tests/profiler/import/ImportFixtures.h"
#include "tests/support/ScratchDirectoryTest.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;
using testing::gunzip;

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::uint64_t envOr(const char* name, std::uint64_t fallback) {
    const char* value = std::getenv(name);
    return value != nullptr ? std::strtoull(value, nullptr, 10) : fallback;
}

// One mutation of `bytes`: flip, overwrite with a JSON-significant byte, insert, delete, duplicate
// a span, or truncate.
std::string mutate(std::string bytes, std::mt19937_64& random) {
    static const char kTokens[] = "{}[]\",:0-9.eE \\tnul\xff\x00";
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int i = 0; i < edits && !bytes.empty(); ++i) {
        const std::size_t at = random() % bytes.size();
        switch (random() % 6) {
            case 0:
                bytes[at] = static_cast<char>(bytes[at] ^ (1u << (random() % 8)));
                break;
            case 1:
                bytes[at] = kTokens[random() % (sizeof kTokens - 1)];
                break;
            case 2:
                bytes.insert(at, 1, kTokens[random() % (sizeof kTokens - 1)]);
                break;
            case 3:
                bytes.erase(at, 1 + random() % 16);
                break;
            case 4: {
                const std::size_t length = std::min<std::size_t>(64, bytes.size() - at);
                bytes.insert(random() % bytes.size(), bytes.substr(at, length));
                break;
            }
            default:
                bytes.resize(at);
        }
    }
    return bytes;
}

class ImportFuzz : public glueprof::testing::ScratchDirectoryTest {
  protected:
    ImportFuzz() : ScratchDirectoryTest("glueprof-fuzz-") {}

    // Imports each mutant; counts those refused. Any other outcome fails the test with the seed
    // and iteration that made it (a crash ends the test binary, which ctest reports).
    void fuzz(const std::string& seedBytes, const std::string& suffix, std::uint64_t iterations,
              std::uint64_t seed) {
        std::mt19937_64 random(seed);
        const std::string path = (m_dir / ("mutant" + suffix)).string();
        std::uint64_t refused = 0;
        for (std::uint64_t i = 0; i < iterations; ++i) {
            std::ofstream(path, std::ios::binary | std::ios::trunc) << mutate(seedBytes, random);
            try {
                readTrace(path, ImportOptions{});
            } catch (const GlueprofError& e) {
                ASSERT_EQ(e.code(), ExitCode::kInput) << "seed " << seed << " iteration " << i;
                ++refused;
            } catch (const std::exception& e) {
                FAIL() << "seed " << seed << " iteration " << i << ": " << e.what();
            }
        }
        // Most mutants of a valid trace are still valid or are refused; both paths ran.
        EXPECT_GT(refused, 0u);
        EXPECT_LT(refused, iterations);
    }
};

TEST_F(ImportFuzz, MutatedKinetoJsonImportsOrIsRefused) {
    const std::string json = gunzip(testing::importFixture("kineto/hta-event_sync_trace.json.gz"));
    ASSERT_GT(json.size(), 1000u);
    fuzz(json, ".json", envOr("GLUEPROF_FUZZ_ITERATIONS", 20000), envOr("GLUEPROF_FUZZ_SEED", 1));
}

TEST_F(ImportFuzz, MutatedGzipImportsOrIsRefused) {
    const std::string gz = readAll(testing::importFixture("kineto/hta-trace_compare-base.json.gz"));
    fuzz(gz, ".json.gz", envOr("GLUEPROF_FUZZ_ITERATIONS", 20000) / 3,
         envOr("GLUEPROF_FUZZ_SEED", 2));
}

TEST_F(ImportFuzz, MutatedNsightExportImportsOrIsRefused) {
    const std::string db = readAll(testing::importFixture("nsys/test-cuda-report1.sqlite"));
    fuzz(db, ".sqlite", envOr("GLUEPROF_FUZZ_ITERATIONS", 20000) / 10,
         envOr("GLUEPROF_FUZZ_SEED", 3));
}

}  // namespace
}  // namespace glueprof
