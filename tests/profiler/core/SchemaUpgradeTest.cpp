// A trace of schema v1 (tests/fixtures/trace-v1.sql, recorded by the release before v2) is read as
// it is, with v2's identity columns derived from v1's conventions, and upgraded in place, with a
// backup, the first time it is opened for writing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "profiler/core/Sqlite.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/core/TraceWriter.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

class SchemaUpgradeTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("glueprof-upgrade-" +
                 std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_db = (m_dir / "v1.sqlite").string();
        std::ifstream dump(std::string(GLUEPROF_SOURCE_DIR) + "/tests/fixtures/trace-v1.sql");
        std::stringstream text;
        text << dump.rdbuf();
        ASSERT_FALSE(text.str().empty());
        SqliteDb(m_db, OpenMode::kReadWriteCreate).exec(text.str());
    }
    void TearDown() override { fs::remove_all(m_dir); }

    int userVersion(const std::string& path) const {
        return static_cast<int>(
            SqliteDb(path, OpenMode::kReadOnly).queryInt("PRAGMA user_version"));
    }

    fs::path m_dir;
    std::string m_db;
};

// What v1 kept in labels, devices and config JSON, as v2 columns.
void expectV1Identities(const std::vector<RunSummary>& runs) {
    ASSERT_EQ(runs.size(), 5u);
    EXPECT_EQ(runs[0].identity.arm, Arm::kBaseline);
    EXPECT_EQ(runs[0].identity.toggle, "packed_cache");
    EXPECT_EQ(runs[0].identity.abGroup, 1);
    EXPECT_EQ(runs[1].identity.arm, Arm::kOptimized);
    EXPECT_EQ(runs[1].identity.abGroup, 1);  // paired with the newest baseline of its toggle
    EXPECT_EQ(runs[1].identity.schedule, "");
    EXPECT_EQ(runs[2].identity.toggle, "roundpipe");
    EXPECT_EQ(runs[2].identity.schedule, "looped-bfs");
    EXPECT_EQ(runs[3].identity.abGroup, 3);
    EXPECT_EQ(runs[3].identity.schedule, "roundpipe");
    EXPECT_EQ(runs[4].identity.kind, RunKind::kSimulated);
    EXPECT_EQ(runs[4].identity.arm, Arm::kNone);
    EXPECT_EQ(runs[4].identity.abGroup, 0);
    EXPECT_EQ(runs[4].identity.schedule, "roundpipe");
    for (const RunSummary& run : runs) EXPECT_FALSE(run.identity.rank.has_value()) << run.id;
    for (int i = 0; i < 4; ++i) EXPECT_EQ(runs[i].identity.kind, RunKind::kTrained);
}

TEST_F(SchemaUpgradeTest, AV1TraceIsReadAsItIsWithItsIdentityDerived) {
    const auto sizeBefore = fs::file_size(m_db);
    {
        TraceReader reader(m_db);
        expectV1Identities(reader.listRuns());
        const TraceModel model = reader.loadRun(4);
        EXPECT_EQ(model.run().identity.schedule, "roundpipe");
        EXPECT_GT(model.eventCount(), 0u);
    }
    EXPECT_EQ(userVersion(m_db), 1);  // nothing written
    EXPECT_EQ(fs::file_size(m_db), sizeBefore);
    EXPECT_FALSE(fs::exists(m_db + ".v1.bak"));
}

TEST_F(SchemaUpgradeTest, OpeningAV1TraceForWritingUpgradesItInPlaceWithABackup) {
    std::size_t eventsBefore = 0;
    eventsBefore = TraceReader(m_db).loadRun(3).eventCount();
    RunId appended = 0;
    {
        TraceWriter writer(m_db);
        EXPECT_NE(writer.upgradeNotice().find("v1 to v2"), std::string::npos);
        EXPECT_NE(writer.upgradeNotice().find(m_db + ".v1.bak"), std::string::npos);
        RunInfo info;
        info.label = "after the upgrade";
        appended = writer.beginRun(info);
        writer.endRun(appended, RunStatus::kComplete);
        writer.close();
    }
    EXPECT_EQ(userVersion(m_db), kTraceSchemaVersion);
    EXPECT_EQ(userVersion(m_db + ".v1.bak"), 1);  // the backup is the v1 file, complete
    EXPECT_EQ(TraceReader(m_db + ".v1.bak").listRuns().size(), 5u);
    TraceReader reader(m_db);
    std::vector<RunSummary> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 6u);
    EXPECT_EQ(runs.back().id, appended);
    runs.pop_back();
    expectV1Identities(runs);  // the same identities, now stored
    EXPECT_EQ(reader.loadRun(3).eventCount(), eventsBefore);
    SqliteDb sqlite(m_db, OpenMode::kReadOnly);
    EXPECT_EQ(sqlite.queryInt("SELECT count(*) FROM sqlite_master WHERE name = 'metrics'"), 0);
    // A second writer finds v2 and upgrades nothing.
    TraceWriter again(m_db);
    EXPECT_EQ(again.upgradeNotice(), "");
    EXPECT_FALSE(fs::exists(m_db + ".v1-2.bak"));
}

}  // namespace
}  // namespace glueprof
