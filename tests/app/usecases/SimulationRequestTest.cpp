// The `simulate` use case (app/usecases/SimulationRequest.h) on the RoundPipe artifact's 1.7B cost
// file: it returns the published makespans and bubble ratios (Looped-BFS 2467.27 ms, 25.01%;
// RoundPipe 2286.02 ms, 19.07%), which the text and JSON renderings print, with each simulation
// stored as a run; a request that cannot run is refused before the database exists.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/report/ResultsJson.h"
#include "app/report/SimulationText.h"
#include "app/usecases/SimulationRequest.h"
#include "profiler/core/Error.h"
#include "profiler/core/TraceReader.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

const std::string kCosts =
    std::string(GLUEPROF_SOURCE_DIR) + "/assets/pipeline/roundpipe-1.7b.json";

class SimulationRequestTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("glueprof-simulation-" +
                 std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    SimulationRequest request(std::vector<std::string> schedules) const {
        SimulationRequest r;
        r.costs = kCosts;
        r.schedules = std::move(schedules);
        r.db = (m_dir / "sim.sqlite").string();
        return r;
    }

    // The exit code of the error `r` is refused with; the database is never created.
    ExitCode refusal(const SimulationRequest& r, const std::string& says) const {
        try {
            runSimulation(r);
        } catch (const GlueprofError& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
            EXPECT_FALSE(fs::exists(r.db));
            return e.code();
        }
        ADD_FAILURE() << "simulated";
        return ExitCode::kOk;
    }

    fs::path m_dir;
};

TEST_F(SimulationRequestTest, TheCostFileGivesThePublishedMakespansAndEachSimulationIsARun) {
    const SimulationResults results = runSimulation(request({"looped-bfs", "roundpipe"}));
    ASSERT_EQ(results.simulations.size(), 2u);
    const SimulatedSchedule& looped = results.simulations[0];
    const SimulatedSchedule& roundPipe = results.simulations[1];
    EXPECT_EQ(looped.schedule, "looped-bfs");
    EXPECT_NEAR(looped.makespanMs, 2467.27, 0.01);
    EXPECT_NEAR(looped.bubbles.ratio, 0.2501, 0.0001);
    EXPECT_FALSE(looped.backwardPartition.has_value());  // a bound schedule has one partition
    EXPECT_EQ(roundPipe.schedule, "roundpipe");
    EXPECT_NEAR(roundPipe.makespanMs, 2286.02, 0.01);
    EXPECT_NEAR(roundPipe.bubbles.ratio, 0.1907, 0.0001);
    EXPECT_EQ(roundPipe.forwardPartition, (std::vector<int>{7, 7, 7, 7}));
    ASSERT_TRUE(roundPipe.backwardPartition.has_value());
    EXPECT_EQ(*roundPipe.backwardPartition, (std::vector<int>{0, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2}));
    for (const SimulatedSchedule& s : results.simulations) {
        EXPECT_EQ(s.workers, 8);  // the cost file's P and M
        EXPECT_EQ(s.microbatches, 16);
        EXPECT_EQ(s.bubbles.perWorker.size(), 8u);
        EXPECT_FALSE(s.executed.has_value());
    }
    EXPECT_FALSE(results.predicted);

    const std::vector<RunSummary> runs = TraceReader(results.db).listRuns();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].id, looped.run);
    EXPECT_EQ(runs[0].label, "simulate:looped-bfs");
    EXPECT_EQ(runs[1].id, roundPipe.run);
    EXPECT_EQ(runs[1].identity.schedule, "roundpipe");

    const std::string text = renderSimulationText(results);
    EXPECT_NE(text.find("  makespan       2286.02 ms\n  bubble ratio   19.07%"), std::string::npos)
        << text;
    EXPECT_NE(text.find("  partition      7,7,7,7  |  backward 0,3,3,3,3,3,3,3,3,2,2\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.substr(text.size() - results.db.size() - 11), "database: " + results.db + "\n");
    const nlohmann::json j = toJson(results);
    ASSERT_EQ(j["simulations"].size(), 2u);
    EXPECT_EQ(j["simulations"][1]["makespan_ms"].get<double>(), roundPipe.makespanMs);
    EXPECT_EQ(j["simulations"][1]["db"], results.db);
}

TEST_F(SimulationRequestTest, PredictionsAddOneRowPerWorkerCountFromTwoToEight) {
    SimulationRequest r = request({"roundpipe"});
    r.predict = true;
    const SimulationResults results = runSimulation(r);
    ASSERT_TRUE(results.predicted);
    ASSERT_EQ(results.predictions.size(), 7u);
    for (std::size_t i = 0; i < results.predictions.size(); ++i) {
        const PredictionRow& row = results.predictions[i];
        EXPECT_EQ(row.workers, 2 + static_cast<int>(i));
        ASSERT_EQ(row.schedules.size(), 2u);
        EXPECT_EQ(row.schedules[0].schedule, "looped-bfs");
        EXPECT_EQ(row.schedules[1].schedule, "roundpipe");
        EXPECT_GT(row.schedules[1].makespanMs, 0.0);
    }
    // P = 8 with M = 2P = 16 is the published RoundPipe case.
    EXPECT_NEAR(results.predictions[6].schedules[1].makespanMs, 2286.02, 0.01);
    const nlohmann::json j = toJson(results);  // one simulation: its object, predictions added
    EXPECT_EQ(j["schedule"], "roundpipe");
    EXPECT_EQ(j["predictions"].size(), 7u);
    EXPECT_EQ(j["predictions"][6]["workers"], 8);
    EXPECT_NE(renderSimulationText(results).find("\npredicted (same costs, M = 2P):\n"),
              std::string::npos);
}

TEST_F(SimulationRequestTest, ARequestThatCannotRunIsRefusedBeforeTheDatabaseExists) {
    SimulationRequest noCosts = request({});
    noCosts.costs.clear();
    EXPECT_EQ(refusal(noCosts, "give the costs once"), ExitCode::kUsage);
    SimulationRequest twice = request({});
    twice.preset = "tiny";
    EXPECT_EQ(refusal(twice, "give the costs once"), ExitCode::kUsage);
    EXPECT_EQ(refusal(request({"zigzag"}), "choose gpipe, 1f1b, looped-bfs or roundpipe"),
              ExitCode::kUsage);
    SimulationRequest partition = request({});
    partition.partition = "7,x";
    EXPECT_EQ(refusal(partition, "--partition '7,x': 'x' is not a layer count"), ExitCode::kUsage);
    SimulationRequest uncovered = request({});
    uncovered.partition = "7,7";  // 14 of the 28 layers
    EXPECT_EQ(refusal(uncovered, "but the costs have 28"), ExitCode::kUsage);
    SimulationRequest tooLarge = request({});
    tooLarge.microbatches = 1000000;
    tooLarge.iterations = 100;
    EXPECT_EQ(refusal(tooLarge, "more than the 2000000 glueprof simulates"), ExitCode::kInput);
    SimulationRequest missing = request({});
    missing.costs = (m_dir / "missing.json").string();
    EXPECT_EQ(refusal(missing, "missing.json"), ExitCode::kInput);
}

TEST_F(SimulationRequestTest, ReplayingARunThatIsNoExecutedPipelineIsAnInputError) {
    const SimulationResults simulated = runSimulation(request({"gpipe"}));
    SimulationRequest replay;
    replay.db = simulated.db;
    replay.replay = simulated.simulations[0].run;
    try {
        runSimulation(replay);
        ADD_FAILURE() << "a simulated run replayed";
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kInput);
        EXPECT_NE(std::string(e.what()).find("is not an executed pipeline (no pipeline_plan)"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace glueprof
