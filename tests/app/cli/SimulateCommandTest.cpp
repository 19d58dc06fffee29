// `glueprof simulate` and the pipelines it models: the published case from its cost file, and an
// executed pipeline (`ab --opt roundpipe`) measured, then replayed.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "profiler/core/TraceReader.h"
#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

using Result = testing::CliResult;
using testing::CliTest;

// glueprof simulate on the artifact's cost file prints the published numbers; its JSON has the
// makespan, the bubble ratio as a fraction and per-worker entries; the runs are in the database.
TEST_F(CliTest, SimulateReproducesThePublishedCaseAndRecordsItsRuns) {
    const std::string costs =
        std::string(GLUEPROF_SOURCE_DIR) + "/assets/pipeline/roundpipe-1.7b.json";
    const std::string db = path("sim.sqlite");
    for (const auto& [schedule, makespan, ratio] :
         {std::tuple<std::string, double, double>{"looped-bfs", 2467.27, 0.2501},
          {"roundpipe", 2286.02, 0.1907}}) {
        Result r =
            run("simulate --costs " + costs + " --schedule " + schedule + " --json --db " + db);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const nlohmann::json j = nlohmann::json::parse(r.out);
        EXPECT_NEAR(j["makespan_ms"].get<double>(), makespan, 0.01) << schedule;
        EXPECT_NEAR(j["bubble_ratio"].get<double>(), ratio, 0.001) << schedule;
        EXPECT_EQ(j["per_worker"].size(), 8u);
        EXPECT_EQ(j["schedule"], schedule);
    }
    Result table = run("simulate --costs " + costs + " --schedule roundpipe --db " + db);
    EXPECT_NE(table.out.find("bubble ratio   19.07%"), std::string::npos) << table.out;
    const std::vector<RunSummary> runs = TraceReader(db).listRuns();
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].label, "simulate:looped-bfs");
    EXPECT_EQ(runs[1].label, "simulate:roundpipe");

    Result noCosts = run("simulate --schedule roundpipe --db " + db);
    EXPECT_EQ(noCosts.exitCode, 1);
    Result badSchedule = run("simulate --costs " + costs + " --schedule zigzag --db " + db);
    EXPECT_EQ(badSchedule.exitCode, 1);
    EXPECT_NE(badSchedule.err.find("choose gpipe, 1f1b, looped-bfs or roundpipe"),
              std::string::npos)
        << badSchedule.err;
    {
        std::ofstream bad(path("bad-costs.json"));
        bad << "{\"format\": \"glueprof-pipeline-costs-1\", \"layers\": 4}";
    }
    Result badFile = run("simulate --costs " + path("bad-costs.json") + " --db " + db);
    EXPECT_EQ(badFile.exitCode, 2);
    EXPECT_NE(badFile.err.find("'forward_ms' is missing"), std::string::npos) << badFile.err;
    // Too large to simulate: refused with its size before the database is created.
    const std::string fresh = path("never-created.sqlite");
    Result tooLarge =
        run("simulate --costs " + costs + " --microbatches 1000000 --iterations 100 --db " + fresh);
    EXPECT_EQ(tooLarge.exitCode, 2);
    EXPECT_NE(tooLarge.err.find("GB), more than the 2000000 glueprof simulates"), std::string::npos)
        << tooLarge.err;
    EXPECT_FALSE(std::filesystem::exists(fresh));
    // A cost file whose partition does not cover its layers, and a hop of 2e6 ms: refused before
    // the database is created (review of issue 17).
    {
        std::ofstream uneven(path("uneven.json"));
        uneven << R"({"format": "glueprof-pipeline-costs-1", "layers": 4, "forward_ms": 1, )"
               << R"("backward_ms": 2, "head_forward_ms": 1, "head_backward_ms": 1, )"
               << R"("partitions": {"roundpipe": {"forward": [1, 1], "backward": [0, 1, 1]}}})";
    }
    Result uneven = run("simulate --costs " + path("uneven.json") + " --db " + fresh);
    EXPECT_EQ(uneven.exitCode, 1);
    EXPECT_NE(uneven.err.find("partition holds 2 layers but the costs have 4"), std::string::npos)
        << uneven.err;
    EXPECT_EQ(run("simulate --costs " + costs + " --hop-ms 2e6 --db " + fresh).exitCode, 1);
    EXPECT_FALSE(std::filesystem::exists(fresh));
}

// The executor on an uneven partition: Looped-BFS binds the 6-layer stage to worker 0, RoundPipe
// deals balanced stages to both workers, so its executed bubble ratio is lower; the loss is
// bit-identical.
TEST_F(CliTest, ExecutedRoundPipeHasALowerBubbleThanAnUnevenLoopedBfs) {
    const std::string db = path("pipe.sqlite");
    Result ab =
        run("ab --preset small --opt roundpipe --partition 6,1,1,0 --steps 1 --warmup 1 --repeats "
            "2 --json --db " +
            db);
    ASSERT_EQ(ab.exitCode, 0) << ab.err;
    const nlohmann::json comparison = nlohmann::json::parse(ab.out)["comparisons"][0];
    EXPECT_TRUE(comparison["loss_equal"].get<bool>());
    Result report = run("report --db " + db + " --format json --out " + path("pipe.json"));
    ASSERT_EQ(report.exitCode, 0) << report.err;
    const nlohmann::json runs = nlohmann::json::parse(slurp(path("pipe.json")))["runs"];
    ASSERT_EQ(runs.size(), 2u);
    const double looped = runs[0]["bubbles"]["ratio"].get<double>();
    const double roundPipe = runs[1]["bubbles"]["ratio"].get<double>();
    EXPECT_EQ(runs[0]["bubbles"]["workers"], 2);
    EXPECT_LT(roundPipe, looped) << "looped-bfs " << looped << ", roundpipe " << roundPipe;
    // ab reports the same executed bubbles itself (table, JSON, Markdown), from the same analyzer.
    EXPECT_DOUBLE_EQ(comparison["pipeline_bubbles"]["baseline"]["ratio"].get<double>(), looped);
    EXPECT_DOUBLE_EQ(comparison["pipeline_bubbles"]["optimized"]["ratio"].get<double>(), roundPipe);
    EXPECT_EQ(comparison["pipeline_bubbles"]["optimized"]["workers"], 2);
    const std::string markdown = slurp(path("pipe-report.md"));
    EXPECT_NE(markdown.find(fmt::format("| bubble ratio | {:.1f}% | {:.1f}% |", 100 * looped,
                                        100 * roundPipe)),
              std::string::npos)
        << markdown;
    std::cerr << "executed bubble ratio on small, partition 6,1,1,0: looped-bfs " << looped
              << ", roundpipe " << roundPipe << "\n";

    // Measure, then replay: each executed run's plan with the costs its jobs measured, beside it.
    for (int id = 1; id <= 2; ++id) {
        Result replay =
            run("simulate --replay " + std::to_string(id) + " --predict --json --db " + db);
        ASSERT_EQ(replay.exitCode, 0) << replay.err;
        const nlohmann::json j = nlohmann::json::parse(replay.out);
        EXPECT_EQ(j["schedule"], id == 1 ? "looped-bfs" : "roundpipe");
        EXPECT_EQ(j["workers"], 2);
        EXPECT_DOUBLE_EQ(j["executed"]["bubble_ratio"].get<double>(),
                         runs[id - 1]["bubbles"]["ratio"].get<double>());
        EXPECT_GT(j["makespan_ms"].get<double>(), 0.0);
        EXPECT_EQ(j["predictions"].size(), 7u);  // P = 2..8
        std::cerr << "run " << id << " executed bubble " << j["executed"]["bubble_ratio"]
                  << ", replayed " << j["bubble_ratio"] << "\n";
    }
    Result notPipeline = run("simulate --replay 99 --db " + db);
    EXPECT_EQ(notPipeline.exitCode, 2) << notPipeline.err;
}

}  // namespace
}  // namespace glueprof
