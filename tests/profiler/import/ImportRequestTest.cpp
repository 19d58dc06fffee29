// The `import` use case (app/usecases/ImportRequest.h) and its rank grouping (RankGrouping.h):
// per-rank traces of one job form one group, BEFORE and AFTER one A/B pair, a request that cannot
// run is refused before the database exists, and each stored run is heard as it is written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "app/usecases/ImportRequest.h"
#include "profiler/core/Error.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/import/RankGrouping.h"

#include "tests/profiler/import/ImportFixtures.h"
#include "tests/support/ScratchDirectoryTest.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

ImportedRun rankOf(std::optional<int> rank, std::optional<int> worldSize) {
    ImportedRun run;
    run.rank = rank;
    run.worldSize = worldSize;
    return run;
}

TEST(RankGroupingTest, TheRanksOfOneWorldJoinTheFirstRunsGroup) {
    RankGrouping ranks;
    EXPECT_EQ(ranks.groupOf(rankOf(1, 3)), kStartsAbGroup);
    ranks.started(7);  // the first run got id 7: the others join group 7
    EXPECT_EQ(ranks.groupOf(rankOf(0, 3)), 7);
    ranks.started(8);  // a later id changes nothing
    EXPECT_EQ(ranks.groupOf(rankOf(2, 3)), 7);
    EXPECT_EQ(ranks.ranks(), 3);
    EXPECT_EQ(ranks.group(), 7);
}

TEST(RankGroupingTest, RunsThatAreNoRankOfSeveralStayApart) {
    RankGrouping ranks;
    EXPECT_EQ(ranks.groupOf(rankOf(std::nullopt, 2)), 0);  // no rank
    EXPECT_EQ(ranks.groupOf(rankOf(0, std::nullopt)), 0);  // no world size
    EXPECT_EQ(ranks.groupOf(rankOf(0, 1)), 0);             // a world of one
    EXPECT_EQ(ranks.groupOf(rankOf(2, 2)), 0);             // outside its world
    EXPECT_EQ(ranks.groupOf(rankOf(-1, 2)), 0);
    EXPECT_EQ(ranks.ranks(), 0);
    EXPECT_EQ(ranks.group(), 0);
}

TEST(RankGroupingTest, ARankSeenTwiceOrAnotherWorldEndsTheGrouping) {
    RankGrouping twice;
    EXPECT_EQ(twice.groupOf(rankOf(0, 2)), kStartsAbGroup);
    twice.started(1);
    EXPECT_EQ(twice.groupOf(rankOf(0, 2)), 0);  // several steps' traces per rank: apart
    EXPECT_EQ(twice.groupOf(rankOf(1, 2)), 0);  // and every one after
    EXPECT_EQ(twice.ranks(), 1);
    RankGrouping other;
    EXPECT_EQ(other.groupOf(rankOf(0, 2)), kStartsAbGroup);
    other.started(4);
    EXPECT_EQ(other.groupOf(rankOf(1, 4)), 0);
    EXPECT_EQ(other.groupOf(rankOf(1, 2)), 0);
}

class ImportRequestTest : public glueprof::testing::ScratchDirectoryTest {
  protected:
    ImportRequestTest() : ScratchDirectoryTest("glueprof-import-request-") {}
    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    // A one-step trace of rank `rank` of 2 in DIR/rankR.json.
    void writeRank(const std::string& dir, int rank) const {
        fs::create_directories(path(dir));
        std::ofstream(path(fmt::format("{}/rank{}.json", dir, rank)))
            << fmt::format(R"({{"distributedInfo": {{"rank": {}, "world_size": 2}},
              "traceEvents": [
                {{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1,
                  "tid": 1, "ts": 0, "dur": 100}},
                {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5,
                  "dur": 20}}]}})",
                           rank);
    }
};

TEST_F(ImportRequestTest, PerRankTracesBecomeOneGroupAndEachRunIsHeardAsItIsStored) {
    writeRank("ranks", 0);
    writeRank("ranks", 1);
    ImportRequest request;
    request.inputs = {path("ranks")};
    request.db = path("ranks.sqlite");
    request.label = "job";
    std::vector<RunId> heard;
    ImportProgress progress;
    progress.stored = [&](const StoredImport& run) { heard.push_back(run.run); };
    const ImportOutcome outcome = runImport(request, progress);

    ASSERT_EQ(outcome.runs.size(), 2u);
    EXPECT_EQ(heard, (std::vector<RunId>{outcome.runs[0].run, outcome.runs[1].run}));
    EXPECT_EQ(outcome.db, request.db);
    EXPECT_EQ(outcome.groupedRanks, 2);
    EXPECT_EQ(outcome.rankGroup, outcome.runs[0].run);
    EXPECT_TRUE(outcome.abName.empty());
    for (const StoredImport& run : outcome.runs) {
        EXPECT_EQ(run.steps, 1u);
        EXPECT_TRUE(run.trace.stepsFound);
        EXPECT_EQ(run.trace.worldSize.value_or(0), 2);
        EXPECT_TRUE(run.trace.model.lanes().empty());  // its events are in the database
    }
    const std::vector<RunSummary> stored = TraceReader(request.db).listRuns();
    ASSERT_EQ(stored.size(), 2u);
    EXPECT_EQ(stored[0].label, "job rank 0");  // files in name order: one per rank
    EXPECT_EQ(stored[1].label, "job rank 1");
    for (const RunSummary& run : stored) EXPECT_EQ(run.identity.abGroup, outcome.rankGroup);
}

// The read's progress (every 65,536 events and once at the end) never goes back and ends at the
// file's size; each file is announced once before it is stored, with the events it stores.
TEST_F(ImportRequestTest, EachFileTellsHowFarItsReadIsAndWhatItStores) {
    const std::string base = testing::importFixture("kineto/hta-trace_compare-base.json.gz");
    const std::string alexnet = testing::importFixture("kineto/hta-alexnet-trace.json.gz");
    ImportRequest request;
    request.inputs = {base, alexnet};
    request.db = path("progress.sqlite");
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> reads;
    std::vector<std::pair<std::string, std::size_t>> stores;
    std::mutex mutex;  // the next file is read on its own thread
    ImportProgress progress;
    progress.reading = [&](const std::string& file, std::uint64_t done, std::uint64_t total) {
        std::lock_guard<std::mutex> lock(mutex);
        reads[file].emplace_back(done, total);
    };
    progress.storing = [&](const std::string& file, std::size_t events) {
        stores.emplace_back(file, events);
    };
    const ImportOutcome outcome = runImport(request, progress);

    ASSERT_EQ(reads.size(), 2u);
    for (const std::string& file : {base, alexnet}) {
        const auto& told = reads[file];
        ASSERT_FALSE(told.empty()) << file;
        for (std::size_t i = 1; i < told.size(); ++i) EXPECT_GE(told[i].first, told[i - 1].first);
        EXPECT_EQ(told.back().first, fs::file_size(file)) << file;
        EXPECT_EQ(told.back().second, fs::file_size(file)) << file;
    }
    ASSERT_EQ(stores.size(), 2u);
    ASSERT_EQ(outcome.runs.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(stores[i].first, request.inputs[i]);
        std::size_t stored = 0;
        for (const auto& [kind, count] : outcome.runs[i].trace.eventsByKind)
            stored += static_cast<std::size_t>(count);
        EXPECT_EQ(stores[i].second, stored) << stores[i].first;
        EXPECT_GT(stored, 0u);
    }
}

TEST_F(ImportRequestTest, BeforeAndAfterAreTheArmsOfOnePair) {
    ImportRequest request;
    request.inputs = {testing::importFixture("kineto/hta-trace_compare-base.json.gz"),
                      testing::importFixture("kineto/hta-trace_compare-test.json.gz")};
    request.db = path("pair.sqlite");
    request.ab = true;
    request.name = "my_change";
    const ImportOutcome outcome = runImport(request);
    ASSERT_EQ(outcome.runs.size(), 2u);
    EXPECT_EQ(outcome.abName, "my_change");
    EXPECT_EQ(outcome.groupedRanks, 0);  // an A/B pair is no rank group
    const std::vector<RunSummary> stored = TraceReader(request.db).listRuns();
    ASSERT_EQ(stored.size(), 2u);
    EXPECT_EQ(stored[0].identity.arm, Arm::kA);
    EXPECT_EQ(stored[1].identity.arm, Arm::kB);
    EXPECT_EQ(stored[0].identity.abGroup, outcome.runs[0].run);
    EXPECT_EQ(stored[1].identity.abGroup, outcome.runs[0].run);
    EXPECT_EQ(stored[1].identity.toggle, "my_change");
    EXPECT_EQ(stored[0].label, "hta-trace_compare-base.json.gz (A)");
}

TEST_F(ImportRequestTest, ARequestThatCannotRunIsRefusedBeforeTheDatabaseExists) {
    writeRank("one", 0);
    auto refusal = [&](ImportRequest request) {
        request.db = path("never.sqlite");
        try {
            runImport(request);
        } catch (const GlueprofError& e) {
            EXPECT_FALSE(fs::exists(request.db));
            return e.code() == ExitCode::kUsage ? std::string(e.what()) : "not usage";
        }
        return std::string("imported");
    };
    ImportRequest oneTrace;
    oneTrace.inputs = {path("one")};
    ImportRequest ab = oneTrace;
    ab.ab = true;
    ab.name = "pair";
    EXPECT_NE(refusal(ab).find("--ab compares two traces"), std::string::npos);
    ImportRequest named = oneTrace;
    named.name = "pair";  // a pair's name without --ab
    EXPECT_NE(refusal(named).find("--name names an A/B pair"), std::string::npos);
    ImportRequest toggle = oneTrace;
    toggle.inputs = {path("one"), path("one/rank0.json")};
    toggle.ab = true;
    toggle.name = "packed_cache";  // the trainer's own toggle
    EXPECT_NE(refusal(toggle).find("is a toggle of glueprof's trainer"), std::string::npos);
    ImportRequest noSteps = oneTrace;
    noSteps.stepPrefix.clear();
    EXPECT_NE(refusal(noSteps).find("--name and --steps need a value"), std::string::npos);
}

TEST_F(ImportRequestTest, ABadAfterTraceLeavesNoLoneBeforeArm) {
    writeRank("one", 0);
    std::ofstream(path("bad.json")) << "not json";
    ImportRequest request;
    request.inputs = {path("one/rank0.json"), path("bad.json")};
    request.db = path("pair.sqlite");
    request.ab = true;
    request.name = "pair";
    EXPECT_THROW(runImport(request), GlueprofError);
    EXPECT_FALSE(fs::exists(request.db));
}

// Files are read one ahead of the store: a bad second file is found while the first is stored;
// the first stays whole, the second leaves nothing, and a third is never stored.
TEST_F(ImportRequestTest, ABadFileAmongSeveralKeepsTheRunsBeforeItAndNothingOfItsOwn) {
    writeRank("ranks", 0);
    writeRank("ranks", 1);
    std::ofstream(path("ranks/rank0b.json")) << "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1,";
    ImportRequest request;
    request.inputs = {path("ranks")};  // rank0.json, rank0b.json (bad), rank1.json: name order
    request.db = path("ranks.sqlite");
    std::vector<RunId> heard;
    ImportProgress progress;
    progress.stored = [&](const StoredImport& run) { heard.push_back(run.run); };
    try {
        runImport(request, progress);
        FAIL() << "a truncated trace was imported";
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kInput);
        EXPECT_NE(std::string(e.what()).find("rank0b.json"), std::string::npos) << e.what();
    }
    ASSERT_EQ(heard.size(), 1u);
    const std::vector<RunSummary> stored = TraceReader(request.db).listRuns();
    ASSERT_EQ(stored.size(), 1u);
    EXPECT_EQ(stored[0].label, "rank0.json");
    EXPECT_EQ(stored[0].status, "complete");
    EXPECT_EQ(stored[0].stepCount, 1);
}

}  // namespace
}  // namespace glueprof
