// `glueprof run` and what reads one run back (`list`, `advise`): training on a data file, the
// run's own tracing overhead, the advisor's findings, and runs ended by a signal.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "profiler/core/TraceReader.h"
#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;
using testing::CliTest;

TEST_F(CliTest, DataFileTrainsOnRealTextAndBadLinesAreNamed) {
    {
        std::ofstream corpus(path("corpus.jsonl"));
        corpus << "{\"text\": \"The quick brown fox jumps over the lazy dog.\"}\n\n"
               << "{\"text\": \"Packed sequences: documents back to back, positions restart.\"}\n";
    }
    Result r = run("run --preset tiny --steps 1 --warmup 0 --json --data " + path("corpus.jsonl") +
                   " --db " + path("d.sqlite"));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["status"], "complete");

    {
        std::ofstream corpus(path("bad.jsonl"));
        corpus << "{\"text\": \"fine\"}\n{\"body\": \"no text field\"}\n";
    }
    Result bad = run("run --preset tiny --data " + path("bad.jsonl") + " --db " + path("b.sqlite"));
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("line 2"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(path("b.sqlite")));
    Result missing =
        run("run --preset tiny --data " + path("nope.txt") + " --db " + path("m.sqlite"));
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.err.find("cannot open"), std::string::npos) << missing.err;
}

// Issue 18: every run says what its tracing cost: the per-op cost calibrated at the capture's
// start (in its environment; null when the calibration could not tell) times the aten ops of a
// measured step on its busiest thread, against the median step, printed after the summary and in
// the JSON.
TEST_F(CliTest, ARunReportsItsOwnTracingOverheadFromTheCalibratedCostAndItsOps) {
    const std::string db = path("overhead.sqlite");
    Result text = run("run --preset tiny --steps 2 --warmup 1 --db " + db);
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_TRUE(text.out.find("tracing overhead ≈ ") != std::string::npos ||
                text.out.find("tracing overhead: not measured") != std::string::npos)
        << text.out;
    Result json = run("run --preset tiny --steps 2 --warmup 1 --json --db " + db);
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const nlohmann::json j = nlohmann::json::parse(json.out);
    const TraceModel model = TraceReader(db).loadRun(j["run"].get<RunId>());
    const nlohmann::json env = nlohmann::json::parse(model.run().environmentJson);
    ASSERT_TRUE(env.contains("tracing_ns_per_op"));  // a number, or null when not measured
    if (env["tracing_ns_per_op"].is_null()) {
        EXPECT_FALSE(j.contains("tracing_overhead"));
        return;
    }
    ASSERT_TRUE(j.contains("tracing_overhead")) << json.out;
    const nlohmann::json& t = j["tracing_overhead"];
    EXPECT_GT(t["ns_per_event"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(env["tracing_ns_per_op"].get<double>(), t["ns_per_event"].get<double>());
    // The tiny trainer records on one host thread: its aten ops of the two measured steps.
    std::size_t ops = 0;
    std::size_t hostLanes = 0;
    for (std::size_t lane = 0; lane < model.lanes().size(); ++lane) {
        if (model.lanes()[lane].kind != LaneKind::kHostThread) continue;
        ++hostLanes;
        for (const Event& e : model.eventsOnLane(lane)) {
            ops += e.kind == EventKind::kOp && e.step >= 1 ? 1 : 0;
        }
    }
    EXPECT_EQ(hostLanes, 1u);
    EXPECT_GT(ops, 0u);
    EXPECT_DOUBLE_EQ(t["events_per_step"].get<double>(), static_cast<double>(ops) / 2.0);
    // The share is that cost over the median step: ns x ops / (step_ms x 1e6).
    EXPECT_NEAR(t["share_of_step"].get<double>(),
                t["ns_per_event"].get<double>() * t["events_per_step"].get<double>() /
                    (j["step_ms"].get<double>() * 1e6),
                1e-12);
}

// A pipelined run: the ops each pipeline worker runs belong to the step and micro-batch of its
// job (the worker's thread takes the job's tags), so per-step sync points and op counts see them.
TEST_F(CliTest, APipelineWorkersOpsBelongToTheStepOfTheirJob) {
    const std::string db = path("pipe.sqlite");
    const Result r =
        run("run --preset tiny --opt roundpipe --steps 2 --warmup 1 --json --db " + db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const TraceModel model = TraceReader(db).loadRun(j["run"].get<RunId>());
    std::size_t workerOps = 0;
    std::size_t inNoStep = 0;
    for (std::size_t lane = 0; lane < model.lanes().size(); ++lane) {
        const Lane& l = model.lanes()[lane];
        if (l.kind != LaneKind::kHostThread || l.name.rfind("pipeline worker", 0) != 0) continue;
        for (const Event& e : model.eventsOnLane(lane)) {
            if (e.kind != EventKind::kOp) continue;
            ++workerOps;
            inNoStep += e.step == kNoTag ? 1 : 0;
            EXPECT_NE(e.microbatch, kNoTag);
        }
    }
    EXPECT_GT(workerOps, 1000u);
    EXPECT_EQ(inNoStep, 0u);
}

// The advisor on baseline traces recorded by the real trainer names the toggle that addresses each
// pattern, and stays quiet once the toggle is on.
TEST_F(CliTest, AdvisorNamesTheToggleForEachBaselinePattern) {
    auto togglesFound = [&](const std::string& runArgs) {
        const std::string db = path("advise.sqlite");
        fs::remove(db);
        Result r = run("run --steps 2 --warmup 1 --db " + db + " " + runArgs);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        Result advice = run("advise --json --db " + db);
        EXPECT_EQ(advice.exitCode, 0) << advice.err;
        const nlohmann::json parsed = nlohmann::json::parse(advice.out);
        std::vector<std::string> toggles;
        for (const nlohmann::json& f : parsed["findings"]) {
            toggles.push_back(f["toggle"]);
            EXPECT_GT(f["saving_ms_per_step"].get<double>(), 0.0) << f["rule"];
        }
        return toggles;
    };
    using List = std::vector<std::string>;
    EXPECT_EQ(togglesFound("--preset tiny"), List{"packed_cache"});
    List moe = togglesFound("--preset moe-tiny");
    EXPECT_NE(std::find(moe.begin(), moe.end(), "moe_group_once"), moe.end());
    List offload = togglesFound("--preset tiny --opt offload --opt packed_cache");
    EXPECT_EQ(offload, List{"double_buffer"});
    EXPECT_EQ(togglesFound("--preset moe-tiny --opt moe_group_once --opt packed_vectorized"),
              List{"moe_sync_free"});
    EXPECT_TRUE(
        togglesFound("--preset moe-tiny --opt moe_sync_free --opt packed_vectorized").empty());
}

TEST_F(CliTest, RunThenListShowsTheRunAndItsSyncPoints) {
    const std::string db = path("run.sqlite");
    Result r = run("run --preset tiny --steps 2 --warmup 1 --json --db " + db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["status"], "complete");
    EXPECT_EQ(j["sync_points_per_step"], 25.0);  // 8 builds x 3 reads + the loss
    Result list = run("list --json --db " + db);
    ASSERT_EQ(list.exitCode, 0) << list.err;
    EXPECT_EQ(nlohmann::json::parse(list.out).size(), 1u);
}

// Issue 17, item 11: Ctrl-C or `kill` during a recording ended the process with its runs left
// `running`. Now the runs in progress end `aborted` at the next step boundary, with every finished
// step, and the exit code is 128 + the signal.
TEST_F(CliTest, SigintAndSigtermEndTheRunsInProgressAbortedWithTheirFinishedSteps) {
    const std::vector<std::pair<int, std::string>> cases = {
        {SIGINT, "run --preset tiny --warmup 1 --steps 100000"},
        {SIGTERM, "ab --preset tiny --opt packed_cache --warmup 1 --steps 100000 --repeats 1"}};
    for (const auto& [signal, args] : cases) {
        SCOPED_TRACE(args);
        const std::string db = path(fmt::format("signal-{}.sqlite", signal));
        const std::string command = fmt::format("exec {} {} --db {} >{} 2>{}", GLUEPROF_CLI, args,
                                                db, path("out.txt"), path("err.txt"));
        const pid_t child = ::fork();
        if (child == 0) {
            ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        // Wait until a run holds 3 steps, then signal.
        bool recording = false;
        for (int attempt = 0; attempt < 1200 && !recording; ++attempt) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            try {
                for (const RunSummary& r : TraceReader(db).listRuns()) {
                    recording = recording || r.stepCount >= 3;
                }
            } catch (const std::exception&) {
                // not created yet
            }
        }
        if (!recording) {  // no orphan left running its 100000 steps
            ::kill(child, SIGKILL);
            ::waitpid(child, nullptr, 0);
        }
        ASSERT_TRUE(recording);
        ::kill(child, signal);
        int status = 0;
        ::waitpid(child, &status, 0);
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
        const std::string err = slurp(path("err.txt"));
        // One line of its own (stderr here is no terminal, so no progress line precedes it).
        EXPECT_TRUE(err.rfind("glueprof: interrupted by", 0) == 0 ||
                    err.find("\nglueprof: interrupted by") != std::string::npos)
            << err;
        const std::vector<RunSummary> runs = TraceReader(db).listRuns();
        ASSERT_FALSE(runs.empty());
        for (const RunSummary& r : runs) EXPECT_EQ(r.status, "aborted") << r.label;
        EXPECT_GE(runs.front().stepCount, 3);
    }
}

}  // namespace
}  // namespace glueprof
