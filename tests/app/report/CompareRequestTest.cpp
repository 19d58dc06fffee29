// The `compare` use case (app/report/CompareRequest.h) on HTA's trace_compare fixtures imported as
// one pair.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "app/report/ResultsJson.h"
#include "app/report/ResultsText.h"
#include "app/usecases/CompareRequest.h"
#include "app/usecases/ImportRequest.h"
#include "profiler/core/Error.h"

#include "tests/profiler/import/ImportFixtures.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

class CompareRequestTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_db = (fs::temp_directory_path() /
                ("glueprof-compare-" +
                 std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                 ".sqlite"))
                   .string();
        removeDb();
        ImportRequest pair;
        pair.inputs = {testing::importFixture("kineto/hta-trace_compare-base.json.gz"),
                       testing::importFixture("kineto/hta-trace_compare-test.json.gz")};
        pair.db = m_db;
        pair.ab = true;
        pair.name = "trace_compare";
        const ImportOutcome outcome = runImport(pair);
        m_base = outcome.runs[0].run;
        m_test = outcome.runs[1].run;
    }
    void TearDown() override { removeDb(); }
    void removeDb() const {
        for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(m_db + suffix);
    }

    std::string m_db;
    RunId m_base = 0;
    RunId m_test = 0;
};

// HTA's TraceDiff on iteration 1010: test adds AddmmBackward0, All2All_Pooled_Req and
// CatBackward0 and drops nccl:all_reduce (as ImportTest's KinetoImport checks on the traces).
TEST_F(CompareRequestTest, OneStepOfEachRunDiffsAsHtaSaysBesideThePairsResults) {
    const CompareResults compared = runCompare({m_db, m_base, m_test, 1010});
    ASSERT_EQ(compared.results.runs.size(), 2u);
    EXPECT_EQ(compared.results.runs[0].run.id, m_base);
    EXPECT_EQ(compared.results.runs[1].run.id, m_test);
    ASSERT_EQ(compared.results.comparisons.size(), 1u);
    EXPECT_EQ(compared.results.comparisons[0].ab.toggle, "trace_compare");
    ASSERT_TRUE(compared.diff.step.has_value());
    EXPECT_EQ(*compared.diff.step, 1010);
    std::set<std::string> added;
    for (const NameDiff* d : compared.diff.of(NameChange::kAdded, DiffSide::kHost))
        added.insert(d->name);
    EXPECT_EQ(added,
              (std::set<std::string>{"AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"}));

    const std::string text = renderCompareText(compared, 12);
    EXPECT_NE(text.find("what changed in step 1010 (per step: count, ms)"), std::string::npos);
    EXPECT_NE(text.find("  host added (3):"), std::string::npos) << text;
    EXPECT_NE(text.find("\nsync points (median per step)\n"), std::string::npos) << text;
    const nlohmann::json j = toJson(compared);
    EXPECT_EQ(j["diff"]["step"], 1010);
    EXPECT_EQ(j["runs"].size(), 2u);
}

TEST_F(CompareRequestTest, WithoutAStepTheMeasuredStepsMeanIsDiffedAndAMissingStepIsAnInputError) {
    const CompareResults compared = runCompare({m_db, m_base, m_test, std::nullopt});
    EXPECT_FALSE(compared.diff.step.has_value());
    EXPECT_GT(compared.diff.referenceSteps, 0u);
    EXPECT_TRUE(toJson(compared)["diff"]["step"].is_null());
    try {
        runCompare({m_db, m_base, m_test, 99999});
        ADD_FAILURE() << "step 99999 compared";
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kInput) << e.what();
    }
}

}  // namespace
}  // namespace glueprof
