// `glueprof ab`: each toggle's A/B on the real trainer (counters, equal losses, the order of events
// a toggle changes), interleaved blocks, the table and the refusals before anything is written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "profiler/core/Sqlite.h"
#include "profiler/core/TimingMetric.h"
#include "profiler/core/TraceReader.h"
#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;
using testing::CliTest;

const nlohmann::json& counterNamed(const nlohmann::json& comparison, const std::string& name) {
    for (const auto& c : comparison["counters"]) {
        if (c["name"] == name) return c;
    }
    static const nlohmann::json kMissing;
    ADD_FAILURE() << "no counter " << name;
    return kMissing;
}

TEST_F(CliTest, AbPackedCacheOnTinyCutsMaskBuildsFromLayerCountToOneWithEqualLoss) {
    const std::string db = path("ab.sqlite");
    Result r = run(
        "ab --preset tiny --opt packed_cache --json --steps 2 --warmup 1 --repeats 3 --db " + db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["preset"], "tiny");
    EXPECT_EQ(j["device"], "cpu");
    EXPECT_EQ(j["db"], db);
    ASSERT_EQ(j["comparisons"].size(), 1u);
    const nlohmann::json& c = j["comparisons"][0];
    EXPECT_EQ(c["toggle"], "packed_cache");
    EXPECT_TRUE(c["loss_equal"].get<bool>());
    // tiny has 4 layers: the forward builds the mask in each of them; the recompute does it again.
    EXPECT_EQ(counterNamed(c, "mask_builds_forward_per_step")["baseline"], 4.0);
    EXPECT_EQ(counterNamed(c, "mask_builds_forward_per_step")["optimized"], 1.0);
    EXPECT_EQ(counterNamed(c, "mask_builds_per_step")["baseline"], 8.0);
    EXPECT_EQ(counterNamed(c, "mask_builds_per_step")["optimized"], 1.0);
    // three host reads per build, plus the loss read once per step
    EXPECT_EQ(counterNamed(c, "host_reads_per_step")["baseline"], 3.0 * 8 + 1);
    EXPECT_EQ(counterNamed(c, "host_reads_per_step")["optimized"], 3.0 + 1);
    EXPECT_GT(counterNamed(c, "ops_per_step")["baseline"].get<double>(),
              counterNamed(c, "ops_per_step")["optimized"].get<double>());
    bool sawForward = false;
    for (const auto& m : c["metrics"]) {
        if (m["name"] != toString(TimingMetric::kForward)) continue;
        sawForward = true;
        EXPECT_GT(m["baseline"].get<double>(), 0.0);
        ASSERT_EQ(m["speedup_ci"].size(), 2u);
        EXPECT_LE(m["speedup_ci"][0].get<double>(), m["speedup_ci"][1].get<double>());
    }
    EXPECT_TRUE(sawForward);

    TraceReader reader(db);
    auto runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].status, "complete");
    EXPECT_EQ(runs[0].stepCount, 1 + 2 * 3);
    EXPECT_TRUE(fs::exists(path("ab-report.md")));
    EXPECT_NE(slurp(path("ab-report.md")).find("packed_cache"), std::string::npos);
}

TEST_F(CliTest, AbAllComparesEveryToggleAndVectorizedReadsNothingButTheLoss) {
    const std::string db = path("all.sqlite");
    Result r = run("ab --preset tiny --all --json --steps 1 --warmup 1 --repeats 1 --db " + db +
                   " --report " + path("report.md"));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    // Every dense toggle runs; the MoE ones are skipped on a dense preset, with the reason.
    std::vector<std::string> ran;
    for (const nlohmann::json& c : j["comparisons"]) ran.push_back(c["toggle"]);
    EXPECT_EQ(ran, (std::vector<std::string>{"packed_cache", "packed_vectorized", "offload",
                                             "double_buffer", "prefetch", "roundpipe"}));
    ASSERT_EQ(j["skipped"].size(), 3u);
    EXPECT_EQ(j["skipped"][0]["toggle"], "moe_group_once");
    EXPECT_NE(j["skipped"][0]["reason"].get<std::string>().find("no MoE layers"),
              std::string::npos);
    EXPECT_EQ(j["skipped"][2]["toggle"], "ddp_overlap");  // one process: nothing to overlap
    EXPECT_NE(j["skipped"][2]["reason"].get<std::string>().find("several ranks"),
              std::string::npos);
    for (const nlohmann::json& c : j["comparisons"])
        EXPECT_TRUE(c["loss_equal"].get<bool>()) << c["toggle"];
    const nlohmann::json& v = j["comparisons"][1];
    EXPECT_EQ(v["toggle"], "packed_vectorized");
    EXPECT_TRUE(v["loss_equal"].get<bool>());
    EXPECT_EQ(counterNamed(v, "host_reads_per_step")["optimized"], 1.0);
    EXPECT_EQ(counterNamed(v, "mask_builds_per_step")["optimized"], 1.0);
    EXPECT_EQ(j["report"], path("report.md"));
    EXPECT_TRUE(fs::exists(path("report.md")));
}

// The calibration aid: its baseline arm spins inside calibration_delay ranges and its optimized arm
// has none (the target removed entirely), the losses are untouched, the stored configuration says
// the steps were padded, and `--all` never runs it.
TEST_F(CliTest, CalibrationDelayPadsOnlyTheBaselineArmAndIsNotPartOfAll) {
    const std::string db = path("calibration.sqlite");
    Result r =
        run("ab --preset tiny --opt calibration_delay --calibration-delay 20 --json --steps 1 "
            "--warmup 1 --repeats 3 --db " +
            db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json c = nlohmann::json::parse(r.out)["comparisons"][0];
    EXPECT_EQ(c["target"]["name"], "calibration_delay_ms");
    EXPECT_GT(c["target"]["baseline"].get<double>(), 0.0);
    EXPECT_EQ(c["target"]["optimized"].get<double>(), 0.0);
    EXPECT_EQ(c["target"]["verdict"], "faster");
    EXPECT_TRUE(c["loss_equal"].get<bool>());
    SqliteDb sqlite(db, OpenMode::kReadOnly);
    EXPECT_EQ(sqlite.queryInt("SELECT COUNT(*) FROM runs WHERE config_json LIKE "
                              "'%\"calibration_delay_percent\":20.0%'"),
              1);

    Result all =
        run("ab --preset tiny --all --steps 1 --warmup 1 --repeats 1 --db " + path("all.sqlite"));
    ASSERT_EQ(all.exitCode, 0) << all.err;
    EXPECT_EQ(all.out.find("calibration_delay"), std::string::npos) << all.out;
}

TEST_F(CliTest, MoeGroupOnceCutsRoutingReadsFromExpertsTimesLayerPassesToTwoPerPass) {
    Result r = run(
        "ab --preset moe-tiny --opt moe_group_once --json --steps 2 --warmup 1 --repeats 1 --db " +
        path("moe.sqlite"));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json c = nlohmann::json::parse(r.out)["comparisons"][0];
    // moe-tiny: 8 experts, 2 MoE layers, each run in forward and again in the recompute. Counted by
    // the op observer inside the routing range: grouping once reads bincount's output size and
    // copies the counts, two per layer pass.
    EXPECT_EQ(counterNamed(c, "routing_host_reads_per_step")["baseline"], 8.0 * 2 * 2);
    EXPECT_EQ(counterNamed(c, "routing_host_reads_per_step")["optimized"], 2.0 * 2 * 2);
    EXPECT_TRUE(c["loss_equal"].get<bool>());
}

TEST_F(CliTest, MoeTogglesAreRefusedOnADensePreset) {
    Result r = run("ab --preset tiny --opt moe_sync_free --db " + path("x.sqlite"));
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.err.find("no MoE layers"), std::string::npos) << r.err;
}

TEST_F(CliTest, DoubleBufferOverlapsReloadsThatOneBufferSerializes) {
    // The first step runs single-buffered (double buffering starts at the second), so warm up one.
    Result r =
        run("ab --preset small --opt double_buffer --json --steps 2 --warmup 1 --repeats 1 --db " +
            path("db.sqlite"));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json c = nlohmann::json::parse(r.out)["comparisons"][0];
    EXPECT_TRUE(c["loss_equal"].get<bool>());
    // small: 8 layers, the last not offloaded, 2 micro-batches; 512 x 256 fp32 inputs.
    EXPECT_EQ(counterNamed(c, "reloads_per_step")["baseline"], 14.0);
    EXPECT_EQ(counterNamed(c, "reloads_per_step")["optimized"], 14.0);
    EXPECT_EQ(counterNamed(c, "offload_bytes_per_step")["optimized"], 14.0 * 512 * 256 * 4);
    EXPECT_EQ(c["copy_overlap"]["optimized"]["compute"], "host ops");
    // The order of events, not a timing: one buffer issues the reload of layer i-1 when it is
    // needed, after the backward of layer i has ended; two buffers issue it before that backward
    // ends, so it runs under it.
    TraceReader reader(path("db.sqlite"));
    const std::vector<RunSummary> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    for (const RunSummary& arm : runs) {
        const TraceModel trace = reader.loadRun(arm.id);
        const std::set<std::int32_t> measured = trace.measuredSteps();
        std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, TimestampNs> backwardEnd;
        std::vector<const Event*> reloads;
        for (std::size_t lane = 0; lane < trace.lanes().size(); ++lane) {
            for (const Event& e : trace.eventsOnLane(lane)) {
                if (measured.count(e.step) == 0) continue;
                const std::string& name = trace.name(e.name);
                if (name == "layer_backward")
                    backwardEnd[{e.step, e.microbatch, e.layer}] = e.endNs;
                if (name == "reload") reloads.push_back(&e);
            }
        }
        ASSERT_FALSE(reloads.empty());
        for (const Event* reload : reloads) {
            auto after = backwardEnd.find({reload->step, reload->microbatch, reload->layer + 1});
            ASSERT_NE(after, backwardEnd.end()) << "reload of layer " << reload->layer;
            if (arm.identity.arm == Arm::kBaseline) {
                EXPECT_GE(reload->startNs, after->second) << "layer " << reload->layer;
            } else {
                EXPECT_LT(reload->startNs, after->second) << "layer " << reload->layer;
            }
        }
    }
}

TEST_F(CliTest, PublishedShapeTooLargeForThisMachineIsRefusedBeforeAnythingIsWritten) {
    Result r = run("ab --preset gpt-oss-20b --opt packed_cache --db " + path("big.sqlite"));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("--scale"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("big.sqlite")));
    Result badScale =
        run("ab --preset gpt-oss-20b --scale 0 --opt packed_cache --db " + path("big.sqlite"));
    EXPECT_EQ(badScale.exitCode, 1);
}

// Interleaved A/B blocks switch runs on one thread many times: each run keeps one lane per thread
// (and one copy-engine lane with offload), and nothing is recorded outside a run.
TEST_F(CliTest, EachRunKeepsOneLanePerThreadAcrossInterleavedBlocks) {
    const std::string db = path("lanes.sqlite");
    ASSERT_EQ(
        run("ab --preset tiny --opt offload --steps 1 --warmup 1 --repeats 3 --db " + db).exitCode,
        0);
    TraceReader reader(db);
    const std::vector<RunSummary> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    const TraceModel baseline = reader.loadRun(runs[0].id);
    const TraceModel optimized = reader.loadRun(runs[1].id);
    EXPECT_EQ(baseline.lanes().size(), 1u);   // baseline: the trainer thread
    EXPECT_EQ(optimized.lanes().size(), 2u);  // offload: and the copy engine
    // The arm order alternates per block (A B, B A, A B): which arm ran first in each block.
    std::map<std::int32_t, TimestampNs> baselineStart, optimizedStart;
    for (const StepInfo& s : baseline.steps()) baselineStart.emplace(s.block, s.startNs);
    for (const StepInfo& s : optimized.steps()) optimizedStart.emplace(s.block, s.startNs);
    EXPECT_LT(baselineStart.at(1), optimizedStart.at(1));
    EXPECT_GT(baselineStart.at(2), optimizedStart.at(2));
    EXPECT_LT(baselineStart.at(3), optimizedStart.at(3));
}

TEST_F(CliTest, TableOutputNamesTheDatabaseAndReport) {
    Result r = run("ab --preset tiny --opt packed_cache --steps 1 --warmup 0 --repeats 1 --db " +
                   path("t.sqlite"));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("mask_builds_per_step"), std::string::npos);
    // packed_cache has a target: its verdict and the end-to-end one, not a third verdict on the
    // primary metric that could contradict them (its figures are in the table).
    EXPECT_NE(r.out.find("\n  target "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n  end to end "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\n  verdict "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("database: " + path("t.sqlite")), std::string::npos);
    EXPECT_NE(r.out.find("report:   " + path("t-report.md")), std::string::npos);
}

}  // namespace
}  // namespace glueprof
