// Runs the real glueprof binary as a user would and checks its output, exit codes and files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>

#include "profiler/core/Sqlite.h"
#include "profiler/core/TimingMetric.h"
#include "profiler/core/TraceReader.h"
#include "tests/app/cli/CliHarness.h"

#include "tests/profiler/import/ImportFixtures.h"

namespace glueprof {
namespace {

// How `--device cuda` is refused on a machine without a GPU: the driver's reason in a CUDA build.
#ifdef GLUEPROF_TORCH_CUDA_BUILD
constexpr const char* kNoCudaRefusal = "--device cuda: no CUDA device: ";
#else
constexpr const char* kNoCudaRefusal = "--device cuda: this libtorch is CPU-only";
#endif

namespace fs = std::filesystem;

using Result = testing::CliResult;

class CliTest : public testing::CliHarness {};

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

TEST_F(CliTest, PublishedShapeTooLargeForThisMachineIsRefusedBeforeAnythingIsWritten) {
    Result r = run("ab --preset gpt-oss-20b --opt packed_cache --db " + path("big.sqlite"));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("--scale"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("big.sqlite")));
    Result badScale =
        run("ab --preset gpt-oss-20b --scale 0 --opt packed_cache --db " + path("big.sqlite"));
    EXPECT_EQ(badScale.exitCode, 1);
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

// The checked-in baseline without its speedup floors: what a fresh A/B must reproduce exactly
// (counters, bit-identical loss). Whether a timing interval clears its floor depends on the
// machine's load, so it is no fact to assert here; RegressionGateTest checks the floors' rule on
// constructed intervals.
std::string baselineWithoutTimingFloors(const std::string& checkedIn, const std::string& out) {
    std::ifstream in(checkedIn);
    nlohmann::json baseline = nlohmann::json::parse(in);
    for (auto& [toggle, spec] : baseline["toggles"].items()) spec.erase("min_speedup");
    std::ofstream(out) << baseline.dump(2);
    return out;
}

// The CI gate: the checked-in baseline's exact facts pass on a fresh A/B of every toggle on tiny;
// an A/A run (the toggle forced off) fails with exit 3 and a JUnit failure; a malformed baseline
// exits 2.
TEST_F(CliTest, CheckGatePassesOnTinyAndFailsWhenAToggleIsForcedOff) {
    const std::string baseline = baselineWithoutTimingFloors(
        std::string(GLUEPROF_SOURCE_DIR) + "/assets/baselines/cpu-tiny.json", path("exact.json"));
    const std::string db = path("gate.sqlite");
    Result ab = run("ab --preset tiny --all --steps 2 --warmup 1 --repeats 3 --db " + db);
    ASSERT_EQ(ab.exitCode, 0) << ab.err;
    Result pass =
        run("check --db " + db + " --baseline " + baseline + " --junit " + path("pass.xml"));
    EXPECT_EQ(pass.exitCode, 0) << pass.out << pass.err;
    EXPECT_NE(pass.out.find("checks passed"), std::string::npos) << pass.out;
    EXPECT_EQ(slurp(path("pass.xml")).find("<failure"), std::string::npos);

    const std::string aa = path("aa.sqlite");
    Result control = run("ab --preset tiny --all --aa --steps 1 --warmup 1 --repeats 1 --db " + aa);
    ASSERT_EQ(control.exitCode, 0) << control.err;
    Result fail =
        run("check --db " + aa + " --baseline " + baseline + " --junit " + path("fail.xml"));
    EXPECT_EQ(fail.exitCode, 3) << fail.out << fail.err;
    EXPECT_NE(fail.out.find("counter mask_builds_per_step"), std::string::npos);
    EXPECT_NE(fail.out.find("FAILED"), std::string::npos);
    const std::string junit = slurp(path("fail.xml"));
    EXPECT_NE(junit.find("<failure message=\"expected 8 -&gt; 1, measured 8 -&gt; 8\""),
              std::string::npos)
        << junit;

    {
        std::ofstream bad(path("bad.json"));
        bad << "{\"format\": \"glueprof-baseline-1\", \"preset\": \"tiny\", \"toggles\": "
               "{\"packed_cache\": "
               "{\"counters\": {\"mask_builds_per_step\": {\"baseline\": \"eight\", \"optimized\": "
               "1}}}}}";
    }
    Result malformed = run("check --db " + db + " --baseline " + path("bad.json"));
    EXPECT_EQ(malformed.exitCode, 2);
    EXPECT_NE(malformed.err.find("mask_builds_per_step.baseline must be a number"),
              std::string::npos)
        << malformed.err;

    // Unknown counters and metrics, and negative floors, are malformed too.
    const std::vector<std::pair<std::string, std::string>> bad = {
        {R"("counters": {"mask_bilds_per_step": {"baseline": 8, "optimized": 1}})",
         "is not a counter glueprof records"},
        {R"("min_speedup": {"forwrd_ms": 0.5})", "is not a metric"},
        {R"("min_speedup": {"mask_build_ms": -1})", "must not be negative"}};
    for (const auto& [entry, message] : bad) {
        std::ofstream(path("bad2.json"))
            << R"({"format": "glueprof-baseline-1", "preset": "tiny", )"
            << R"("toggles": {"packed_cache": {)" << entry << "}}}";
        Result r = run("check --db " + db + " --baseline " + path("bad2.json"));
        EXPECT_EQ(r.exitCode, 2) << entry;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    }

    // A toggle the database ran that the baseline lacks fails, unless allowed.
    nlohmann::json partial = nlohmann::json::parse(slurp(baseline));
    partial["toggles"].erase("roundpipe");
    std::ofstream(path("partial.json")) << partial.dump();
    Result missing = run("check --db " + db + " --baseline " + path("partial.json"));
    EXPECT_EQ(missing.exitCode, 3) << missing.out;
    EXPECT_NE(missing.out.find("missing: add it with --update-baseline"), std::string::npos)
        << missing.out;
    EXPECT_EQ(run("check --db " + db + " --baseline " + path("partial.json") + " --allow-missing")
                  .exitCode,
              0);
}

TEST_F(CliTest, MoeTinyBaselineGatesEveryToggleWithItsTargetVerdicts) {
    const std::string db = path("moe.sqlite");
    Result ab = run("ab --preset moe-tiny --all --steps 3 --warmup 1 --repeats 3 --db " + db);
    ASSERT_EQ(ab.exitCode, 0) << ab.err;
    // Each toggle's two verdicts: its target (mask-build time falls structurally) and end to end.
    EXPECT_NE(ab.out.find("target                             mask-build time"), std::string::npos)
        << ab.out;
    EXPECT_NE(ab.out.find("end to end                         step time"), std::string::npos);
    EXPECT_NE(ab.out.find("(3 blocks)"), std::string::npos);
    const std::string baseline = baselineWithoutTimingFloors(
        std::string(GLUEPROF_SOURCE_DIR) + "/assets/baselines/cpu-moe-tiny.json",
        path("moe-exact.json"));
    Result gate = run("check --db " + db + " --baseline " + baseline);
    EXPECT_EQ(gate.exitCode, 0) << gate.out << gate.err;
    EXPECT_NE(gate.out.find("moe_group_once"), std::string::npos);
    EXPECT_NE(gate.out.find("counter routing_host_reads_per_step"), std::string::npos) << gate.out;
}

// A real run with offload exported as a Chrome trace: the main thread and the copy engine are two
// tids of the host process and every slice on each nests; the CSV export has one row per event.
TEST_F(CliTest, ExportWritesANestedChromeTraceAndCsvOfARealRun) {
    const std::string db = path("e.sqlite");
    ASSERT_EQ(run("run --preset tiny --opt offload --steps 1 --warmup 1 --db " + db).exitCode, 0);
    Result chrome = run("export --db " + db + " --format chrome --out " + path("t.json"));
    ASSERT_EQ(chrome.exitCode, 0) << chrome.err;
    const nlohmann::json trace = nlohmann::json::parse(slurp(path("t.json")));
    std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> byTid;
    std::set<std::string> threadNames;
    for (const nlohmann::json& e : trace["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name")
            threadNames.insert(e["args"]["name"].get<std::string>());
        if (e["ph"] != "X") continue;
        const auto start = std::llround(e["ts"].get<double>() * 1000.0);
        byTid[e["tid"].get<std::int64_t>()].push_back(
            {start, start + std::llround(e["dur"].get<double>() * 1000.0)});
    }
    EXPECT_EQ(byTid.size(), 2u);
    EXPECT_EQ(threadNames.count("copy engine"), 1u);
    for (auto& [tid, slices] : byTid) {
        std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        std::vector<std::int64_t> open;
        for (const auto& [start, end] : slices) {
            while (!open.empty() && open.back() <= start) open.pop_back();
            ASSERT_TRUE(open.empty() || end <= open.back())
                << "tid " << tid << " slice at " << start;
            open.push_back(end);
        }
    }
    Result csv = run("export --db " + db + " --format csv --out " + path("e.csv"));
    ASSERT_EQ(csv.exitCode, 0) << csv.err;
    const std::string events = slurp(path("e.csv"));
    std::size_t rows = 0;
    for (char c : events) rows += c == '\n' ? 1 : 0;
    std::size_t sliceCount = 0;
    for (const auto& [tid, slices] : byTid) sliceCount += slices.size();
    EXPECT_GE(rows - 1, sliceCount);  // every event is a row; instants are not slices
    EXPECT_NE(slurp(path("e-steps.csv")).find("glue_math_ms"), std::string::npos);
    EXPECT_EQ(run("export --db " + db + " --format svg --out " + path("x")).exitCode, 1);
}

TEST_F(CliTest, ReportOfTheLatestAbInEveryFormat) {
    const std::string db = path("rep.sqlite");
    ASSERT_EQ(
        run("ab --preset tiny --opt double_buffer --steps 1 --warmup 1 --repeats 1 --db " + db)
            .exitCode,
        0);
    for (const char* format : {"html", "md", "json"}) {
        Result r = run(std::string("report --db ") + db + " --format " + format + " --out " +
                       path(std::string("r.") + format));
        ASSERT_EQ(r.exitCode, 0) << r.err;
        EXPECT_NE(r.out.find("runs 1 vs 2"), std::string::npos) << r.out;
    }
    const std::string html = slurp(path("r.html"));
    EXPECT_NE(html.find("Before / after: <code>double_buffer</code>"), std::string::npos);
    EXPECT_NE(html.find("Copy/compute overlap"), std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(slurp(path("r.json")));
    EXPECT_EQ(j["runs"].size(), 2u);
    ASSERT_EQ(j["comparisons"].size(), 1u);
    EXPECT_TRUE(j["comparisons"][0]["loss_equal"].get<bool>());
    // The toggle's, from the catalogue (the compared run's identity names the toggle).
    EXPECT_EQ(j["comparisons"][0]["primary_metric"], toString(TimingMetric::kBackward));
    // Arms given in the wrong order are no A/B: named by their runs, judged on step time.
    Result swapped =
        run("report --db " + db + " --runs 2,1 --format json --out " + path("swapped.json"));
    ASSERT_EQ(swapped.exitCode, 0) << swapped.err;
    const nlohmann::json other = nlohmann::json::parse(slurp(path("swapped.json")));
    EXPECT_EQ(other["comparisons"][0]["toggle"], "run 2 vs 1");
    EXPECT_EQ(other["comparisons"][0]["primary_metric"], toString(TimingMetric::kStep));
    // A report over its own database is refused before anything is written.
    EXPECT_EQ(run("report --db " + db + " --format md --out " + db).exitCode, 2);
    EXPECT_EQ(TraceReader(db).listRuns().size(), 2u);
    Result single = run("report --db " + db + " --runs 2 --format md --out " + path("one.md"));
    EXPECT_EQ(single.exitCode, 0) << single.err;
    EXPECT_EQ(run("report --db " + db + " --runs 1,x --out " + path("bad.html")).exitCode, 1);
    EXPECT_EQ(run("report --db " + db + " --runs 9 --out " + path("none.html")).exitCode, 2);
    EXPECT_FALSE(fs::exists(path("none.html")));
}

#ifdef GLUEPROF_GUI_BINARY
// The real glueprof-gui in a virtual X display (xvfb-run, from Debian): it opens the database an
// A/B wrote, draws, saves a screenshot that is not blank, and the results it dumps are, field for
// field, the ones `glueprof ab --json` printed and `glueprof report --format json` wrote.
TEST_F(CliTest, GuiUnderXvfbShowsTheSameNumbersAsTheCli) {
    const std::string db = path("gui.sqlite");
    Result ab = run(
        "ab --preset tiny --opt packed_cache --json --steps 2 --warmup 1 --repeats 1 --db " + db);
    ASSERT_EQ(ab.exitCode, 0) << ab.err;
    const std::string command = "xvfb-run -a -s '-screen 0 1600x1000x24' " +
                                std::string(GLUEPROF_GUI_BINARY) + " --db " + db +
                                " --frames 6 --screenshot " + path("gui.png") + " --dump-state " +
                                path("state.json") + " >" + path("gui.out") + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << slurp(path("gui.out"));
    // A blank 1600x1000 frame compresses to a few KiB; the dashboard's text and bars do not.
    EXPECT_GT(fs::file_size(path("gui.png")), 30000u);
    const nlohmann::json state = nlohmann::json::parse(slurp(path("state.json")));
    const nlohmann::json printed = nlohmann::json::parse(ab.out);
    Result report = run("report --db " + db + " --format json --out " + path("report.json"));
    ASSERT_EQ(report.exitCode, 0) << report.err;
    const nlohmann::json reported = nlohmann::json::parse(slurp(path("report.json")));
    // One results model behind the three faces: `ab --json`, `report --format json` and the GUI's
    // dashboard agree field for field (all but the Markdown report only `ab` wrote).
    const nlohmann::json& shown = state["dashboard"];
    ASSERT_EQ(printed["comparisons"].size(), 1u);
    for (const char* field :
         {"runs", "comparisons", "db", "preset", "device", "gpu_capture", "schedule"}) {
        EXPECT_EQ(printed[field], reported[field]) << field;
        EXPECT_EQ(printed[field], shown[field]) << field;
    }
    EXPECT_EQ(printed["report"], path("gui-report.md"));
    EXPECT_EQ(state["selected"]["baseline"], printed["comparisons"][0]["runs"]["baseline"]);
    EXPECT_EQ(state["selected"]["optimized"], printed["comparisons"][0]["runs"]["optimized"]);
    EXPECT_TRUE(state["errors"].empty());
    EXPECT_GT(state["frame_ms"]["frames"],
              0);  // the app timed the frames it drew with the analysis shown
    EXPECT_GT(state["events_loaded"], 1000);
    EXPECT_NE(state["font"], "");  // a TrueType font, not ImGui's bitmap one
}

// The app runs an A/B of packed_cache on tiny itself (through --script), into a new database; its
// screenshot is not blank and its dashboard numbers equal the CLI's report of the same database.
TEST_F(CliTest, GuiScriptRunsAnAbWhoseNumbersMatchTheCliReport) {
    const std::string db = path("scripted.sqlite");
    {
        std::ofstream script(path("ab.script"));
        script << "open " << db
               << "\nshow Run A/B\nrun tiny packed_cache 2 1 2\nwait\nshow Timeline\n";
    }
    const std::string command = "xvfb-run -a -s '-screen 0 1600x1000x24' " +
                                std::string(GLUEPROF_GUI_BINARY) + " --frames 6 --script " +
                                path("ab.script") + " --screenshot " + path("s.png") +
                                " --dump-state " + path("s.json") + " >" + path("s.out") + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << slurp(path("s.out"));
    EXPECT_GT(fs::file_size(path("s.png")), 30000u);
    const nlohmann::json state = nlohmann::json::parse(slurp(path("s.json")));
    EXPECT_TRUE(state["errors"].empty()) << state["errors"];
    ASSERT_TRUE(state.contains("dashboard")) << state.dump();
    Result report =
        run("report --db " + db + " --runs 1,2 --format json --out " + path("cli.json"));
    ASSERT_EQ(report.exitCode, 0) << report.err;
    const nlohmann::json cli = nlohmann::json::parse(slurp(path("cli.json")));
    EXPECT_EQ(state["dashboard"]["comparisons"], cli["comparisons"]);
    EXPECT_EQ(state["dashboard"]["runs"][0]["glue_breakdown_ms"],
              cli["runs"][0]["glue_breakdown_ms"]);
    EXPECT_EQ(state["dashboard"]["runs"][1]["findings"], cli["runs"][1]["findings"]);
}

// Issue 17, item 4: bad script lines, a missing script and a database that does not open were
// accepted silently and the headless app exited 0. Now: an error naming the line, exit 2.
TEST_F(CliTest, GuiHeadlessExitsTwoOnABadScriptLineOrDatabase) {
    const std::string db = path("g.sqlite");
    ASSERT_EQ(run("ab --preset tiny --opt packed_cache --steps 1 --warmup 1 --repeats 1 --db " + db)
                  .exitCode,
              0);
    auto gui = [&](const std::string& args) {
        const std::string command = "xvfb-run -a -s '-screen 0 800x600x24' " +
                                    std::string(GLUEPROF_GUI_BINARY) + " --frames 3 " + args +
                                    " >" + path("g.out") + " 2>" + path("g.err");
        const int status = std::system(command.c_str());
        return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(path("g.err")));
    };
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"select abc def", "select needs run ids"},
        {"align x", "align needs a step number"},
        {"show NoSuchPanel", "no panel named 'NoSuchPanel'"},
        {"run tiny packed_cache 0 1 1", "run needs 1 to 100000 measured steps per block"},
        {"frobnicate", "unknown action 'frobnicate'"}};
    for (const auto& [line, message] : bad) {
        std::ofstream(path("bad.script")) << line << "\n";
        const auto [code, err] = gui("--db " + db + " --script " + path("bad.script"));
        EXPECT_EQ(code, 2) << line << ": " << err;
        EXPECT_NE(err.find(message), std::string::npos) << line << ": " << err;
    }
    EXPECT_EQ(gui("--db " + db + " --script " + path("missing.script")).first, 2);
    EXPECT_EQ(gui("--db " + db + " --script " + m_dir.string()).first, 2);  // a directory
    EXPECT_EQ(gui("--db " + path("no/such/dir.sqlite")).first, 2);
    std::ofstream(path("good.script")) << "select 1 2\nshow Timeline\nalign -1\n";
    EXPECT_EQ(gui("--db " + db + " --script " + path("good.script")).first, 0);
}
#endif

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
    EXPECT_NE(r.out.find("verdict"), std::string::npos);
    EXPECT_NE(r.out.find("database: " + path("t.sqlite")), std::string::npos);
    EXPECT_NE(r.out.find("report:   " + path("t-report.md")), std::string::npos);
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

// On these machines without a GPU doctor names the missing piece. The CUDA build (PyPI's torch, as
// CI builds) loads torch's own libcupti and prints its API version, has NCCL built in, and says
// that GPU capture is off because there is no CUDA device, in the driver's own words (cuInit, or
// the loader's message when there is no driver at all). A bad GLUEPROF_CUPTI_PATH gives its
// documented message.
TEST_F(CliTest, DoctorReportsTorchAndWhyThereIsNoGpu) {
    Result r = run("doctor");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto line = [&r](const std::string& label) {
        const std::size_t at = r.out.find(label);
        return at == std::string::npos ? std::string()
                                       : r.out.substr(at, r.out.find('\n', at) - at);
    };
    EXPECT_FALSE(line("libtorch ").empty()) << r.out;
#ifdef GLUEPROF_TORCH_CUDA_BUILD
    EXPECT_TRUE(std::regex_search(
        line("libtorch "),
        std::regex(R"(libtorch +2\.[0-9]+\.[0-9]+\+cu[0-9]+ \(built with CUDA [0-9]+\.[0-9]+\))")))
        << r.out;
    EXPECT_TRUE(std::regex_search(
        line("CUPTI library "),
        std::regex(R"(libcupti\.so\.[0-9]+ \(CUPTI API [0-9]+; built with [0-9]+\))")))
        << r.out;
    EXPECT_TRUE(std::regex_search(
        line("NCCL (ranks on CUDA) "),
        std::regex(R"(built: nccl\.h ([0-9.]+), torch's NCCL \1 \(.*libnccl\.so\.2\))")))
        << r.out;
    EXPECT_NE(line("CUDA device ").find("none: no CUDA device: "), std::string::npos) << r.out;
    EXPECT_NE(line("GPU capture ").find("off: no CUDA device: "), std::string::npos) << r.out;
#else
    const std::string reason = line("GPU capture             off: ");
    bool named = false;
    for (const char* why :
         {"built without CUPTI headers", "libcupti not found", "no CUDA device", "CPU-only"}) {
        named = named || reason.find(why) != std::string::npos;
    }
    EXPECT_TRUE(named) << r.out;
#endif

    Result bad = run("doctor", "GLUEPROF_CUPTI_PATH=" + path("missing-libcupti.so"));
    ASSERT_EQ(bad.exitCode, 0) << bad.err;
    if (bad.out.find("built without CUPTI headers") == std::string::npos) {
        EXPECT_NE(bad.out.find("GLUEPROF_CUPTI_PATH=" + path("missing-libcupti.so") +
                               " cannot be loaded"),
                  std::string::npos)
            << bad.out;
    }
}

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

// The rank files (DB.LAUNCH.rank-R) beside `db`.
std::vector<std::string> rankFilesBeside(const std::string& db) {
    std::vector<std::string> files;
    const fs::path path(db);
    for (const auto& entry : fs::directory_iterator(path.parent_path())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(path.filename().string() + ".", 0) == 0 &&
            name.find(".rank-") != std::string::npos && name.find("-wal") == std::string::npos &&
            name.find("-shm") == std::string::npos)
            files.push_back(entry.path().string());
    }
    return files;
}

// Issue 19: `run --nproc 2` starts two ranks (Gloo over loopback) that record into their own files;
// rank 0 merges them into the database as one group of two runs, rank 0 and rank 1, whose gradient
// all-reduces line up by sequence number, and removes the rank files.
TEST_F(CliTest, RunWithTwoRanksMergesOneRunPerRankWithTheirAllReducesLinedUp) {
    const std::string db = path("ranks.sqlite");
    Result r = run("run --nproc 2 --preset tiny --warmup 1 --steps 2 --json --db " + db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["world_size"], 2);
    ASSERT_EQ(j["ranks"].size(), 2u);
    EXPECT_EQ(j["rank_analysis"]["steps"].size(), 2u);  // the measured steps, across the ranks
    EXPECT_EQ(j["rank_analysis"]["comm_compute_overlap"].size(), 2u);
    for (const nlohmann::json& rank : j["ranks"])
        EXPECT_TRUE(rank["clock_alignment"]["same_machine_as_rank_0"].get<bool>());
    for (const nlohmann::json& s : j["rank_analysis"]["steps"]) EXPECT_GT(s["collectives"], 0);
    EXPECT_TRUE(rankFilesBeside(db).empty());

    const TraceReader reader(db);
    const std::vector<RunSummary> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 2u);
    std::vector<std::vector<std::int64_t>> sequences(2);
    for (int rank = 0; rank < 2; ++rank) {
        const RunSummary& summary = runs[rank];
        EXPECT_EQ(summary.status, "complete");
        EXPECT_EQ(summary.stepCount, 3);
        ASSERT_TRUE(summary.identity.rank.has_value());
        EXPECT_EQ(*summary.identity.rank, rank);
        EXPECT_EQ(summary.identity.worldSize.value_or(0), 2);
        EXPECT_EQ(summary.identity.abGroup, runs[0].id);
        const nlohmann::json environment = nlohmann::json::parse(summary.environmentJson);
        EXPECT_TRUE(environment["clock_alignment"]["same_machine_as_rank_0"].get<bool>());
        EXPECT_EQ(environment["clock_alignment"]["offset_ns"], 0);
        const TraceModel model = reader.loadRun(summary.id);
        for (std::size_t lane = 0; lane < model.lanes().size(); ++lane) {
            for (const Event& e : model.eventsOnLane(lane)) {
                if (model.name(e.name) != "all_reduce") continue;
                EXPECT_EQ(e.category, Category::kComm);
                EXPECT_GT(e.bytes, 0);
                sequences[rank].push_back(e.correlation);
            }
        }
        std::sort(sequences[rank].begin(), sequences[rank].end());
    }
    EXPECT_FALSE(sequences[0].empty());
    EXPECT_EQ(sequences[0], sequences[1]);  // the same collectives, numbered alike
}

// Issue 19, the 2-rank Gloo A/B of CI: `ab --nproc 2 --opt ddp_overlap` runs both arms on both
// ranks in the same interleaved blocks and compares them rank by rank. ddp_overlap all-reduces
// gradients in buckets from the accumulators' hooks as soon as they are ready: with 2 ranks every
// step's loss equals the per-parameter baseline's bit for bit, it issues fewer all-reduces, and the
// first starts while the step's backward is still running.
TEST_F(CliTest, AbOverTwoRanksComparesDdpOverlapRankByRankWithTheBaselinesLosses) {
    const std::string db = path("ddp.sqlite");
    Result r =
        run("ab --nproc 2 --opt ddp_overlap --ddp-bucket-mb 0.05 --preset tiny --warmup 1 "
            "--steps 2 --repeats 2 --json --db " +
            db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["comparisons"].size(), 1u) << r.out;
    const nlohmann::json& c = j["comparisons"][0];
    EXPECT_EQ(c["toggle"], "ddp_overlap");
    EXPECT_TRUE(c["loss_equal"].get<bool>());
    ASSERT_TRUE(c.contains("ranks")) << c.dump();
    EXPECT_EQ(c["ranks"]["world_size"], 2);
    ASSERT_EQ(c["ranks"]["per_rank"].size(), 2u);
    for (int rank = 0; rank < 2; ++rank) {
        const nlohmann::json& p = c["ranks"]["per_rank"][rank];
        EXPECT_EQ(p["rank"], rank);
        EXPECT_TRUE(p["loss_equal"].get<bool>()) << p.dump();
        EXPECT_EQ(p["comm_compute_overlap"][0], 0.0);  // blocking: nothing runs beside it
        EXPECT_GT(p["comm_compute_overlap"][1].get<double>(), 0.0);
    }
    EXPECT_EQ(c["ranks"]["baseline"]["steps"].size(), 4u);  // 2 blocks x 2 steps, every rank
    EXPECT_EQ(j["schedule"]["repeats"], 2);
    EXPECT_TRUE(rankFilesBeside(db).empty());

    struct Arm {
        std::vector<std::vector<double>> losses;  // per rank, per step
        std::size_t allReduces = 0;               // rank 0's
        bool startedInsideBackward = false;  // rank 0: an all-reduce began before backward ended
    };
    std::map<std::string, Arm> arms;
    const TraceReader reader(db);
    const std::vector<RunSummary> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 4u);  // both arms on both ranks, one group
    for (const RunSummary& summary : runs) {
        EXPECT_EQ(summary.identity.abGroup, runs[0].id);
        EXPECT_EQ(summary.identity.worldSize.value_or(0), 2);
        Arm& arm = arms[toString(summary.identity.arm)];
        const TraceModel model = reader.loadRun(summary.id);
        std::vector<double> losses;
        for (const StepInfo& s : model.steps()) losses.push_back(s.loss);
        arm.losses.push_back(losses);
        if (summary.identity.rank.value_or(-1) != 0) continue;
        std::map<std::int32_t, TimestampNs> backwardEnd;
        std::vector<const Event*> reduces;
        for (std::size_t lane = 0; lane < model.lanes().size(); ++lane) {
            for (const Event& e : model.eventsOnLane(lane)) {
                const std::string& n = model.name(e.name);
                if (n == "backward") backwardEnd[e.step] = std::max(backwardEnd[e.step], e.endNs);
                if (n == "all_reduce") reduces.push_back(&e);
            }
        }
        arm.allReduces = reduces.size();
        for (const Event* e : reduces)
            arm.startedInsideBackward =
                arm.startedInsideBackward || e->startNs < backwardEnd[e->step];
    }
    const Arm& baseline = arms["baseline"];
    const Arm& overlap = arms["optimized"];
    ASSERT_EQ(baseline.losses.size(), 2u);
    EXPECT_EQ(overlap.losses, baseline.losses);         // bit for bit, both ranks, every step
    EXPECT_NE(baseline.losses[0], baseline.losses[1]);  // the ranks' own shards
    EXPECT_GT(overlap.allReduces, 0u);
    EXPECT_LT(overlap.allReduces, baseline.allReduces);  // buckets, not parameters
    EXPECT_TRUE(overlap.startedInsideBackward);
    EXPECT_FALSE(baseline.startedInsideBackward);  // the baseline waits for backward to end

    // The report of the latest A/B shows the ranks, and `check` gates on it like any A/B.
    ASSERT_EQ(run(fmt::format("report --db {} --format md --out {}", db, path("ddp.md"))).exitCode,
              0);
    std::ifstream md(path("ddp.md"));
    const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("### Ranks (2 processes"), std::string::npos) << text;
    const std::string gate = path("ddp-baseline.json");
    Result update = run(fmt::format("check --db {} --baseline {} --update-baseline", db, gate));
    ASSERT_EQ(update.exitCode, 0) << update.err;
    EXPECT_NE(update.out.find("1 toggle(s)"), std::string::npos) << update.out;
    Result check = run(fmt::format("check --db {} --baseline {}", db, gate));
    EXPECT_EQ(check.exitCode, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("ddp_overlap"), std::string::npos) << check.out;

    Result one = run("run --preset tiny --opt ddp_overlap --db " + path("one.sqlite"));
    EXPECT_EQ(one.exitCode, 1);
    EXPECT_NE(one.err.find("run it with several ranks"), std::string::npos) << one.err;
}

// With 3 ranks Gloo's ring all-reduce sums each value in an order set by where it falls in the
// buffer (its chunk), and a parameter's offset in a bucket differs from its offset alone: the arms'
// losses agree to rounding (float addition is not associative), not bit for bit. README's bound:
// every step's loss within 1e-5 relative of the baseline's, on every rank (measured: ~1e-7).
TEST_F(CliTest, AbOverThreeRanksKeepsDdpOverlapsLossesWithinRoundingOfTheBaselines) {
    const std::string db = path("ddp3.sqlite");
    Result r = run(
        "ab --nproc 3 --opt ddp_overlap --preset tiny --warmup 1 --steps 2 --repeats 2 --db " + db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const TraceReader reader(db);
    std::map<int, std::map<std::string, std::vector<double>>> losses;  // rank -> arm -> per step
    for (const RunSummary& summary : reader.listRuns()) {
        EXPECT_EQ(summary.identity.worldSize.value_or(0), 3);
        std::vector<double>& mine =
            losses[summary.identity.rank.value_or(-1)][toString(summary.identity.arm)];
        const TraceModel model = reader.loadRun(summary.id);  // the steps live as long as it
        for (const StepInfo& s : model.steps()) mine.push_back(s.loss);
    }
    ASSERT_EQ(losses.size(), 3u);
    for (const auto& [rank, arms] : losses) {
        const std::vector<double>& baseline = arms.at("baseline");
        const std::vector<double>& overlap = arms.at("optimized");
        ASSERT_EQ(baseline.size(), 5u) << "rank " << rank;  // 1 warm-up + 2 blocks x 2 steps
        ASSERT_EQ(overlap.size(), baseline.size()) << "rank " << rank;
        for (std::size_t step = 0; step < baseline.size(); ++step)
            EXPECT_NEAR(overlap[step], baseline[step], 1e-5 * std::abs(baseline[step]))
                << "rank " << rank << " step " << step;
    }
    EXPECT_NE(losses[0]["baseline"], losses[2]["baseline"]);  // the ranks' own shards
}

// With --budget every rank runs the steps per block rank 0 chose (a rank stepping more would wait
// in an all-reduce the others never start), even when the budget is spent by then; a toggle that
// cannot run on ranks is refused before any rank starts.
TEST_F(CliTest, AbOverTwoRanksWithABudgetRunsRankZerosStepsOnEveryRank) {
    const std::string db = path("budget.sqlite");
    Result r =
        run("ab --nproc 2 --opt ddp_overlap --ddp-bucket-mb 0.05 --preset tiny --warmup 1 "
            "--steps 6 --repeats 2 --budget 0.001 --json --db " +
            db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::vector<RunSummary> runs = TraceReader(db).listRuns();
    ASSERT_EQ(runs.size(), 4u);
    for (const RunSummary& summary : runs)
        EXPECT_EQ(summary.stepCount, 1 + 2 * 1) << summary.label;  // a spent budget: 1 per block

    Result roundpipe = run("ab --nproc 2 --opt roundpipe --preset tiny --db " + path("rp.sqlite"));
    EXPECT_EQ(roundpipe.exitCode, 1);
    EXPECT_NE(roundpipe.err.find("run it without --nproc"), std::string::npos) << roundpipe.err;
    EXPECT_FALSE(fs::exists(path("rp.sqlite")));
}

// Several ranks on CUDA are checked before any rank starts or any file exists: here (no GPU) the
// launcher and a torchrun-style rank both refuse --device cuda with the reason, exit 2, as
// one-process runs do. (On a GPU machine the same check counts one GPU per rank:
// gpu-check.sh.)
TEST_F(CliTest, RanksOnCudaAreRefusedBeforeAnythingStartsWhereThereIsNoGpu) {
    for (const std::string& environment :
         {std::string(), std::string("RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_PORT=1")}) {
        const std::string db = path("cuda.sqlite");
        const Result r = run(std::string(environment.empty() ? "run --nproc 2" : "run") +
                                 " --device cuda --preset tiny --steps 1 --db " + db,
                             environment);
        EXPECT_EQ(r.exitCode, 2) << environment << ": " << r.err;
        EXPECT_NE(r.err.find(kNoCudaRefusal), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator()), 2)
            << "only out.txt and err.txt";
    }
}

// A file an earlier multi-process run left unmerged (its launcher was killed) is merged first, on
// its own: its run is kept and does not mix with the new run's ranks.
TEST_F(CliTest, ARankFileLeftByAnEarlierRunIsMergedFirstAndKeptApart) {
    const std::string db = path("left.sqlite");
    ASSERT_EQ(
        run("run --preset tiny --warmup 1 --steps 1 --db " + db + ".0123abcd.rank-1").exitCode, 0);
    Result r = run("run --nproc 2 --preset tiny --warmup 1 --steps 1 --db " + db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("merged 1 run(s) that earlier multi-process runs left"), std::string::npos)
        << r.err;
    const std::vector<RunSummary> runs = TraceReader(db).listRuns();
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_FALSE(runs[0].identity.rank.has_value());  // the earlier run, as it was
    EXPECT_EQ(runs[1].identity.rank.value_or(-1), 0);
    EXPECT_EQ(runs[2].identity.rank.value_or(-1), 1);
    EXPECT_EQ(runs[2].identity.abGroup, runs[1].id);
    EXPECT_TRUE(rankFilesBeside(db).empty());
}

// Issue 19: a rank that dies ends the others (no process is left), the launcher names the rank and
// how it ended, and every rank's finished steps are kept in the database.
TEST_F(CliTest, ARankKilledMidRunStopsTheOthersAndKeepsEveryRanksFinishedSteps) {
    const std::string db = path("killed.sqlite");
    const std::string command = fmt::format(
        "exec {} run --nproc 2 --preset tiny --warmup 1 --steps 100000 --db {} >{} 2>{}",
        GLUEPROF_CLI, db, path("out.txt"), path("err.txt"));
    const pid_t launcher = ::fork();
    if (launcher == 0) {
        ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // The launcher's children, by rank (RANK in their environment).
    auto ranks = [&] {
        std::map<int, pid_t> found;
        for (const auto& entry : fs::directory_iterator("/proc")) {
            const std::string name = entry.path().filename();
            if (name.find_first_not_of("0123456789") != std::string::npos) continue;
            std::ifstream stat(entry.path() / "stat");
            std::string text((std::istreambuf_iterator<char>(stat)), {});
            const auto close = text.rfind(')');
            if (close == std::string::npos) continue;
            std::istringstream fields(text.substr(close + 2));
            char state = 0;
            pid_t parent = 0;
            fields >> state >> parent;
            if (parent != launcher) continue;
            std::ifstream environ(entry.path() / "environ");
            std::string variables((std::istreambuf_iterator<char>(environ)), {});
            for (std::size_t p = 0; p < variables.size();) {
                const std::string variable = variables.c_str() + p;
                if (variable.rfind("RANK=", 0) == 0)
                    found[std::stoi(variable.substr(5))] = std::stoi(name);
                p += variable.size() + 1;
            }
        }
        return found;
    };
    bool recording = false;
    for (int attempt = 0; attempt < 1200 && !recording; ++attempt) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        try {
            for (const std::string& file : rankFilesBeside(db)) {
                if (file.find(".rank-1") == std::string::npos) continue;
                for (const RunSummary& r : TraceReader(file).listRuns())
                    recording = recording || r.stepCount >= 3;
            }
        } catch (const std::exception&) {
            // not created yet
        }
    }
    const std::map<int, pid_t> started = ranks();
    if (!recording || started.size() != 2) {
        ::kill(launcher, SIGKILL);  // its ranks die with it (PR_SET_PDEATHSIG)
        ::waitpid(launcher, nullptr, 0);
    }
    ASSERT_TRUE(recording);
    ASSERT_EQ(started.size(), 2u);
    ::kill(started.at(1), SIGKILL);
    int status = 0;
    pid_t ended = 0;
    for (int attempt = 0; attempt < 600 && ended == 0; ++attempt) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ended = ::waitpid(launcher, &status, WNOHANG);
    }
    if (ended == 0) {
        ::kill(launcher, SIGKILL);
        ::waitpid(launcher, nullptr, 0);
    }
    ASSERT_NE(ended, 0) << "the launcher did not end within 60 s";
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
    const std::string err = slurp(path("err.txt"));
    EXPECT_NE(err.find("glueprof: rank 1 of 2 was killed by signal 9"), std::string::npos) << err;
    for (const auto& [rank, pid] : started)
        EXPECT_FALSE(fs::exists("/proc/" + std::to_string(pid)))
            << "rank " << rank << " is still there";
    const std::vector<RunSummary> runs = TraceReader(db).listRuns();
    ASSERT_EQ(runs.size(), 2u);
    for (const RunSummary& r : runs) {
        EXPECT_NE(r.status, "complete");
        EXPECT_GE(r.stepCount, 3);
    }
    EXPECT_TRUE(rankFilesBeside(db).empty());
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

// Any capture loss in the compared runs fails the gate (exit 3) unless --allow-loss; ab on CPU says
// why there is no GPU capture in its header. The baseline is written from the same runs, so only
// the loss can fail the gate (the checked-in baseline's floors are timing, which a busy machine can
// break; RegressionGateTest checks the floors' rule).
TEST_F(CliTest, CheckFailsOnCaptureLossUnlessAllowed) {
    const std::string baseline = path("loss-baseline.json");
    const std::string db = path("loss.sqlite");
    Result ab = run("ab --preset tiny --all --steps 2 --warmup 1 --repeats 3 --db " + db);
    ASSERT_EQ(ab.exitCode, 0) << ab.err;
    EXPECT_NE(ab.out.find("GPU capture: off: a CPU run"), std::string::npos) << ab.out;
    ASSERT_EQ(run("check --db " + db + " --baseline " + baseline + " --update-baseline").exitCode,
              0);
    ASSERT_EQ(run("check --db " + db + " --baseline " + baseline).exitCode, 0);
    {  // a lost-records diagnostic on the newest optimized run, as a CUPTI capture would write it
        SqliteDb sqlite(db, OpenMode::kReadWriteCreate);
        sqlite.exec(
            "INSERT INTO diagnostics (run_id, name, value, detail) SELECT MAX(id), "
            "'cupti_dropped_records', "
            "12, 'CUPTI dropped records' FROM runs");
    }
    Result lost = run("check --db " + db + " --baseline " + baseline);
    EXPECT_EQ(lost.exitCode, 3) << lost.out << lost.err;
    EXPECT_NE(lost.out.find("cupti_dropped_records = 12"), std::string::npos) << lost.out;
    EXPECT_NE(lost.out.find("--allow-loss"), std::string::npos) << lost.out;
    Result allowed = run("check --allow-loss --db " + db + " --baseline " + baseline);
    EXPECT_EQ(allowed.exitCode, 0) << allowed.out << allowed.err;
}

TEST_F(CliTest, UsageErrorsExitOneWithAOneLineMessage) {
    for (const std::string& args :
         {std::string("ab --preset huge --all"), std::string("ab --preset tiny --opt nope"),
          std::string("ab --preset tiny"), std::string("ab --bogus-flag"),
          std::string("frobnicate"), std::string("ab --preset tiny --all --opt packed_cache"),
          std::string("ab --preset tiny --opt packed_cache --opt packed_cache"),
          std::string("ab --preset tiny --opt packed_cache --budget 5 --warmup 0")}) {
        Result r = run(args + " --db " + path("u.sqlite"));
        EXPECT_EQ(r.exitCode, 1) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    }
    EXPECT_NE(run("ab --preset huge --all").err.find("choose one of tiny, small"),
              std::string::npos);
    EXPECT_NE(run("abx").err.find("unknown command 'abx'; the commands are ab, run"),
              std::string::npos);
    EXPECT_FALSE(fs::exists(path("u.sqlite")));
}

TEST_F(CliTest, InputErrorsExitTwoAndLeaveNoFileBehind) {
    std::ofstream(path("notes.txt")) << "not a database";
    Result notSqlite = run("ab --preset tiny --all --db " + path("notes.txt"));
    EXPECT_EQ(notSqlite.exitCode, 2) << notSqlite.err;
    EXPECT_NE(notSqlite.err.find("not an SQLite database"), std::string::npos);
    EXPECT_EQ(slurp(path("notes.txt")), "not a database");

    Result missingDir = run("ab --preset tiny --all --db " + path("missing/x.sqlite"));
    EXPECT_EQ(missingDir.exitCode, 2) << missingDir.err;

    Result tooLarge =
        run("ab --preset tiny --all --hidden 65536 --layers 512 --db " + path("big.sqlite"));
    EXPECT_EQ(tooLarge.exitCode, 2) << tooLarge.err;
    EXPECT_NE(tooLarge.err.find("GiB"), std::string::npos);
    EXPECT_FALSE(fs::exists(path("big.sqlite")));

    Result listMissing = run("list --db " + path("absent.sqlite"));
    EXPECT_EQ(listMissing.exitCode, 2);
}

std::string sharedFixture(const std::string& name) { return testing::importFixture(name); }

TEST_F(CliTest, ImportedBeforeAndAfterTracesAreComparedReportedAndGated) {
    const std::string db = path("imported.sqlite");
    Result imported = run(fmt::format("import --ab {} {} --name trace_compare --db {}",
                                      sharedFixture("kineto/hta-trace_compare-base.json.gz"),
                                      sharedFixture("kineto/hta-trace_compare-test.json.gz"), db));
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    EXPECT_NE(imported.out.find("imported run 1 from"), std::string::npos) << imported.out;
    EXPECT_NE(imported.out.find("2 steps (ProfilerStep#N ranges)"), std::string::npos);
    EXPECT_NE(imported.out.find("A/B 'trace_compare': run 1 (A) vs run 2 (B)"), std::string::npos);

    Result compared = run(fmt::format("compare --db {} --runs 1,2 --step 1010", db));
    ASSERT_EQ(compared.exitCode, 0) << compared.err;
    EXPECT_NE(compared.out.find("host added (3)"), std::string::npos) << compared.out;
    EXPECT_NE(compared.out.find("All2All_Pooled_Req"), std::string::npos);
    EXPECT_NE(compared.out.find("host removed (1)"), std::string::npos);
    EXPECT_NE(compared.out.find("not recorded (imported traces)"), std::string::npos);
    Result json = run(fmt::format("compare --db {} --runs 1,2 --json", db));
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const nlohmann::json j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["diff"]["reference_steps"], 2);

    // The user's own CI: a baseline from this pair, then the gate on it.
    const std::string baseline = path("baseline.json");
    ASSERT_EQ(
        run(fmt::format("check --db {} --baseline {} --update-baseline", db, baseline)).exitCode,
        0);
    Result gate = run(fmt::format("check --db {} --baseline {}", db, baseline));
    EXPECT_EQ(gate.exitCode, 0) << gate.out << gate.err;
    EXPECT_NE(gate.out.find("trace_compare"), std::string::npos) << gate.out;
    EXPECT_EQ(run(fmt::format("report --db {} --out {}", db, path("r.html"))).exitCode, 0);
}

TEST_F(CliTest, ImportOfEveryFixtureFormatPrintsOneLinePerRun) {
    const std::string db = path("all.sqlite");
    Result r = run(fmt::format("import {} {} --db {}", sharedFixture("kineto"),
                               sharedFixture("nsys/test-cuda-report1.sqlite"), db));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 5) << r.out;
    EXPECT_NE(r.out.find("41 cuda_sync"), std::string::npos);
    EXPECT_NE(r.out.find("export schema 3.24"), std::string::npos);
    Result listed = run(fmt::format("list --db {} --json", db));
    ASSERT_EQ(listed.exitCode, 0) << listed.err;
    EXPECT_NE(listed.out.find("\"imported\""), std::string::npos);
    EXPECT_EQ(run(fmt::format("advise --db {} --run 1", db)).exitCode, 0);
}

TEST_F(CliTest, BadTracesExitTwoWithOneLineAndWriteNoDatabase) {
    const std::string db = path("never.sqlite");
    std::ofstream(path("empty.json")).close();
    std::ofstream(path("broken.json")) << "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1,";
    for (const std::string& bad : {path("empty.json"), path("broken.json"), path("missing.json")}) {
        Result r = run(fmt::format("import {} --db {}", bad, db));
        EXPECT_EQ(r.exitCode, 2) << bad << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(db)) << bad;
    }
    // --ab reads both traces first: a bad AFTER leaves no lone BEFORE.
    Result ab = run(fmt::format("import --ab {} {} --db {}",
                                sharedFixture("kineto/hta-trace_compare-base.json.gz"),
                                path("broken.json"), db));
    EXPECT_EQ(ab.exitCode, 2) << ab.err;
    EXPECT_FALSE(fs::exists(db));
    EXPECT_EQ(run(fmt::format("import --ab {} --db {}", path("broken.json"), db)).exitCode, 1);
}

// A directory of one torch.profiler trace per rank: one run per rank, grouped as one data-parallel
// run, its collectives (record_param_comms, "Seq") lined up across the ranks and its NCCL kernels
// counted as communication, so the ranks' analysis is the same as for glueprof's own ranks.
TEST_F(CliTest, ADirectoryOfPerRankTracesImportsOneRunPerRankAnalyzedSideBySide) {
    fs::create_directories(path("ranks"));
    for (int rank : {1, 0}) {
        // Rank r starts all-reduce #3 at 20 + 5r us; its NCCL kernel [40, 60] half under a GEMM.
        std::ofstream(path(fmt::format("ranks/rank{}.pt.trace.json", rank)))
            << fmt::format(R"({{"distributedInfo": {{"rank": {}, "world_size": 2}},
              "traceEvents": [
                {{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 10, "tid": 10, "ts": 0, "dur": 100}},
                {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": 5, "dur": {}}},
                {{"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 10, "tid": 10, "ts": 19, "dur": 20}},
                {{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 10, "tid": 10, "ts": {}, "dur": 10,
                  "args": {{"Collective name": "allreduce", "Seq": 3, "In msg nelems": 256, "dtype": "Float"}}}},
                {{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7, "ts": 40, "dur": 20,
                  "args": {{"correlation": 11, "stream": 7, "device": 0, "Collective name": "allreduce"}}}},
                {{"ph": "X", "cat": "kernel", "name": "sm90_gemm", "pid": 0, "tid": 8, "ts": 50, "dur": 20,
                  "args": {{"correlation": 12, "stream": 8, "device": 0}}}}]}})",
                           rank, 10 + rank, 20 + 5 * rank);
    }
    std::ofstream(path("ranks/notes.txt")) << "not a trace";
    const std::string db = path("ranks.sqlite");
    Result r = run(fmt::format("import {} --db {} --label job", path("ranks"), db));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("rank 0 of 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("rank 1 of 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("form one data-parallel group"), std::string::npos) << r.out;
    const nlohmann::json runs =
        nlohmann::json::parse(run(fmt::format("list --db {} --json", db)).out);
    ASSERT_EQ(runs.size(), 2u) << runs.dump();
    std::set<std::pair<std::string, int>> ranks;
    std::int64_t rank0 = 0;
    for (const auto& run : runs) {
        EXPECT_EQ(run["identity"]["kind"], "imported");
        EXPECT_EQ(run["identity"]["world_size"], 2);
        EXPECT_EQ(run["identity"]["ab_group"], runs[0]["id"]);  // one group: the job
        ranks.emplace(run["label"].get<std::string>(), run["identity"]["rank"].get<int>());
        if (run["identity"]["rank"] == 0) rank0 = run["id"].get<std::int64_t>();
    }
    EXPECT_EQ(ranks, (std::set<std::pair<std::string, int>>{{"job rank 0", 0}, {"job rank 1", 1}}));

    // The collective: a comm range numbered by its Seq, its bytes from nelems x Float.
    const TraceModel model = TraceReader(db).loadRun(rank0);
    int collectives = 0;
    for (std::size_t lane = 0; lane < model.lanes().size(); ++lane) {
        for (const Event& e : model.eventsOnLane(lane)) {
            if (model.name(e.name) == "c10d::allreduce_") {
                EXPECT_EQ(e.kind, EventKind::kOp);  // c10d's op: communication, not compute
                EXPECT_EQ(e.category, Category::kComm);
            }
            if (model.name(e.name) != "record_param_comms") continue;
            ++collectives;
            EXPECT_EQ(e.kind, EventKind::kRange);
            EXPECT_EQ(e.category, Category::kComm);
            EXPECT_EQ(e.correlation, 3);
            EXPECT_EQ(e.bytes, 1024);
        }
    }
    EXPECT_EQ(collectives, 1);

    // Rank 0's run brings rank 1's: the ranks compared, as for `run --nproc`.
    ASSERT_EQ(run(fmt::format("report --db {} --runs {} --format json --out {}", db, rank0,
                              path("ranks.json")))
                  .exitCode,
              0);
    std::ifstream in(path("ranks.json"));
    const nlohmann::json report = nlohmann::json::parse(in);
    ASSERT_EQ(report["rank_sets"].size(), 1u) << report.dump();
    const nlohmann::json& analysis = report["rank_sets"][0]["analysis"];
    EXPECT_EQ(report["rank_sets"][0]["runs"].size(), 2u);
    EXPECT_DOUBLE_EQ(analysis["median_straggler_ms"].get<double>(), 0.005);  // 25 us - 20 us
    // HTA's overlap on a GPU: the NCCL kernel [40, 60] under the GEMM [50, 70] for half its time.
    EXPECT_EQ(analysis["comm_compute_overlap"], nlohmann::json::parse("[0.5, 0.5]"));
    EXPECT_EQ(analysis["steps"][0]["collectives"], 1);
    ASSERT_EQ(run(fmt::format("report --db {} --runs {} --format md --out {}", db, rank0,
                              path("ranks.md")))
                  .exitCode,
              0);
    std::ifstream md(path("ranks.md"));
    const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("## Ranks of run"), std::string::npos) << text;
}

TEST_F(CliTest, AStoredLabelThatIsNotUtf8KeepsEveryJsonOutputValid) {
    // Issue 17, item 1: a 0xFF byte in a stored label made list/report/advise --json exit 2.
    const std::string db = path("u.sqlite");
    ASSERT_EQ(run("ab --preset tiny --opt packed_cache --steps 1 --warmup 1 --repeats 1 --db " + db)
                  .exitCode,
              0);
    {
        SqliteDb handle(db, OpenMode::kReadWriteCreate);
        handle.exec("UPDATE runs SET label = 'x' || CAST(X'FF' AS TEXT) WHERE id = 1");
    }
    for (const std::string& command :
         {"list --db " + db + " --json", "advise --db " + db + " --run 1 --json",
          "report --db " + db + " --format json --out " + path("r.json")}) {
        Result r = run(command);
        EXPECT_EQ(r.exitCode, 0) << command << ": " << r.err;
    }
    const nlohmann::json runs = nlohmann::json::parse(run("list --db " + db + " --json").out);
    EXPECT_EQ(runs[0]["label"], "x\xEF\xBF\xBD");  // U+FFFD in place of the bad byte
}

TEST_F(CliTest, ForeignBytesInATraceKeepEveryJsonOutputValid) {
    // An unknown category with a 0xFF byte and an escape sequence is skipped, and the reason
    // quoting it is stored, printed and serialized safely.
    std::ofstream(path("odd.json"))
        << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"c\xff\\u001b[2J\", "
           "\"name\": \"z\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}, "
           "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
           "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}";
    const std::string db = path("odd.sqlite");
    Result imported = run(fmt::format("import {} --db {} --label 'a\nb'", path("odd.json"), db));
    ASSERT_EQ(imported.exitCode, 0) << imported.err;
    EXPECT_EQ(imported.out.find('\x1b'), std::string::npos);
    for (const std::string& command :
         {fmt::format("list --db {} --json", db),
          fmt::format("report --db {} --format json --out {}", db, path("r.json"))}) {
        Result r = run(command);
        EXPECT_EQ(r.exitCode, 0) << command << ": " << r.err;
    }
    EXPECT_NO_THROW(nlohmann::json::parse(run(fmt::format("list --db {} --json", db)).out));
}

// Issue 28, items 18 and 19: `--budget 0` printed a 392-character message with a 309-digit bound,
// and NaN, a negative LoRA rank or alpha were accepted (NaN passes every range: each comparison
// with it is false). Now each is refused at once, exit 1, in one short line naming the option.
TEST_F(CliTest, NumberOptionsRefuseNanInfinityAndNonPositiveValuesNamingTheOption) {
    const std::string db = path("n.sqlite");
    const std::string ab = "ab --preset tiny --opt packed_cache --steps 1 --warmup 1 --repeats 1 ";
    const std::string runTiny = "run --preset tiny --steps 1 --warmup 1 ";
    const std::vector<std::pair<std::string, std::string>> refused = {
        {ab + "--budget 0", "--budget: 0 is not a positive number of seconds"},
        {ab + "--budget -5", "--budget: -5 is not a positive number of seconds"},
        {ab + "--budget nan", "--budget: nan is not a positive number of seconds"},
        {ab + "--budget inf", "--budget: inf is not a positive number of seconds"},
        {ab + "--budget 1e999", "--budget: 1e999 is not a positive number of seconds"},
        {runTiny + "--lora-rank -1", "--lora-rank"},
        {runTiny + "--lora-alpha -3", "--lora-alpha: -3 is not a positive number"},
        {runTiny + "--lora-alpha nan", "--lora-alpha: nan is not a positive number"},
        {runTiny + "--ddp-bucket-mb nan", "--ddp-bucket-mb: nan is not a number from 0.001"},
        {runTiny + "--doc-lengths fixed:nan", "--doc-lengths"},
        {runTiny + "--doc-lengths lognormal:inf,0.5", "--doc-lengths"},
        {"simulate --hop-ms nan", "--hop-ms: nan is not a number from 0 to 1000000"},
        {"simulate --optimizer-ms -inf", "--optimizer-ms"},
        {"compare --runs 1,2 --top 0", "--top"}};
    for (const auto& [args, message] : refused) {
        Result r = run(args + " --db " + db);
        EXPECT_EQ(r.exitCode, 1) << args << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
        EXPECT_LT(r.err.size(), 200u) << args << ": " << r.err;
    }
    EXPECT_FALSE(fs::exists(db));
}

// Issue 28, item 12: a run's JSON column edited into something that is not JSON gave
// `internal error: [json.exception.parse_error.101]`. Every reader of config_json, toggles_json and
// environment_json now says which run and column are damaged and what to do, exit 2.
TEST_F(CliTest, ADamagedStoredRunConfigurationNamesTheRunTheColumnAndTheFix) {
    const std::string db = path("d.sqlite");
    ASSERT_EQ(run("ab --preset tiny --opt packed_cache --steps 1 --warmup 1 --repeats 1 --db " + db)
                  .exitCode,
              0);
    auto edit = [&](const std::string& sql) {
        SqliteDb handle(db, OpenMode::kReadWriteCreate);
        handle.exec(sql);
    };
    auto expectDamaged = [&](const std::string& args, const std::string& column, int runId) {
        Result r = run(args);
        EXPECT_EQ(r.exitCode, 2) << args << ": " << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << args << ": " << r.err;
        EXPECT_NE(r.err.find(fmt::format("run {}'s stored configuration is damaged: runs.{}", runId,
                                         column)),
                  std::string::npos)
            << args << ": " << r.err;
        EXPECT_NE(r.err.find("record the run again"), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    };
    edit("UPDATE runs SET toggles_json = '[1,2' WHERE id = 1");
    expectDamaged("list --json --db " + db, "toggles_json", 1);
    EXPECT_EQ(run("list --db " + db).exitCode, 0);  // the table shows no toggles
    edit("UPDATE runs SET toggles_json = '[]', environment_json = '{' WHERE id = 1");
    expectDamaged("report --format json --db " + db + " --out " + path("r.json"),
                  "environment_json", 1);
    EXPECT_FALSE(fs::exists(path("r.json")));
    edit("UPDATE runs SET environment_json = '[]' WHERE id = 1");  // JSON, of the wrong kind
    expectDamaged("report --format md --db " + db + " --out " + path("r.md"), "environment_json",
                  1);
    edit("UPDATE runs SET environment_json = '{}', config_json = 'x' WHERE id = 2");
    expectDamaged("simulate --replay 2 --db " + db, "config_json", 2);
}

// Issue 28, item 20: a baseline floor of NaN (not JSON) or 1e309 (beyond a double) was reported as
// "not a JSON object". Now the message names the field and why.
TEST_F(CliTest, ABaselineThatIsNotJsonNamesTheFieldAndWhy) {
    const std::string db = path("b.sqlite");
    ASSERT_EQ(run("ab --preset tiny --opt packed_cache --steps 1 --warmup 1 --repeats 1 --db " + db)
                  .exitCode,
              0);
    const std::string head =
        R"({"format": "glueprof-baseline-1", "preset": "tiny", "device": "cpu", )"
        R"("toggles": {"packed_cache": {)";
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {R"("min_speedup": {"forward_ms": NaN}}}})",
         {"toggles.packed_cache.min_speedup.forward_ms: not a JSON number", "NaN"}},
        {R"("min_speedup": {"forward_ms": -Infinity}}}})",
         {"toggles.packed_cache.min_speedup.forward_ms: not a JSON number", "Infinity"}},
        {R"("min_speedup": {"forward_ms": 1e309}}}})",
         {"toggles.packed_cache.min_speedup.forward_ms: 1e309 is beyond the range of a number"}},
        {R"("counters": {"mask_builds_per_step": {"baseline": 8, "optimized": -1e400}}}}})",
         {"toggles.packed_cache.counters.mask_builds_per_step.optimized: -1e400 is beyond"}}};
    for (const auto& [tail, messages] : cases) {
        std::ofstream(path("baseline.json")) << head << tail;
        Result r = run("check --db " + db + " --baseline " + path("baseline.json"));
        EXPECT_EQ(r.exitCode, 2) << tail << ": " << r.err;
        EXPECT_EQ(r.err.find("not a JSON object"), std::string::npos) << tail << ": " << r.err;
        for (const std::string& message : messages) {
            EXPECT_NE(r.err.find(message), std::string::npos) << tail << ": " << r.err;
        }
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << tail << ": " << r.err;
    }
}

#ifdef GLUEPROF_GUI_BINARY
// Issue 28, item 22: a bad option value (`--size 1600x1000`) ended the GUI with CLI11's internal
// exit code 104. Now: CLI11's one line, prefixed, and the usage exit code, as `glueprof`'s.
TEST_F(CliTest, GuiRefusesABadOptionValueInOneLineWithTheUsageExitCode) {
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"--size 1600x1000", "--size"},
        {"--size 0", "--size"},
        {"--frames -1", "--frames"},
        {"--frames three", "--frames"},
        {"--no-such-flag", "--no-such-flag"}};
    for (const auto& [args, option] : refused) {
        const std::string command = std::string(GLUEPROF_GUI_BINARY) + " " + args + " >" +
                                    path("g.out") + " 2>" + path("g.err");
        const int status = std::system(command.c_str());
        const std::string err = slurp(path("g.err"));
        EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1) << args << ": " << err;
        EXPECT_EQ(err.rfind("glueprof-gui: ", 0), 0u) << args << ": " << err;
        EXPECT_NE(err.find(option), std::string::npos) << args << ": " << err;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << args << ": " << err;
    }
}

// Issue 28, item 5: a config directory that cannot be created or written (XDG_CONFIG_HOME a plain
// file, or read-only) aborted the GUI (exit 134, filesystem_error). Now it starts, saves no
// settings and says so once in its log.
TEST_F(CliTest, GuiStartsWithoutSavingSettingsWhereTheConfigDirectoryIsNotWritable) {
    const std::string db = path("s.sqlite");
    ASSERT_EQ(run("ab --preset tiny --opt packed_cache --steps 1 --warmup 1 --repeats 1 --db " + db)
                  .exitCode,
              0);
    std::ofstream(path("plain-file")) << "not a directory";
    std::vector<std::string> configHomes = {path("plain-file")};
    fs::create_directories(path("read-only"));
    fs::permissions(path("read-only"), fs::perms::owner_read | fs::perms::owner_exec);
    if (::geteuid() != 0) configHomes.push_back(path("read-only"));  // root writes there anyway
    for (const std::string& home : configHomes) {
        fs::remove(path("state.json"));
        const std::string command =
            "XDG_CONFIG_HOME=" + home + " xvfb-run -a -s '-screen 0 800x600x24' " +
            std::string(GLUEPROF_GUI_BINARY) + " --db " + db + " --frames 3 --dump-state " +
            path("state.json") + " >" + path("g.out") + " 2>&1";
        const int status = std::system(command.c_str());
        ASSERT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0)
            << home << ": " << slurp(path("g.out"));
        const nlohmann::json state = nlohmann::json::parse(slurp(path("state.json")));
        EXPECT_TRUE(state["errors"].empty()) << state["errors"];
        int said = 0;
        for (const auto& line : state["log"]) {
            said += line.get<std::string>().find("will not be saved") != std::string::npos ? 1 : 0;
        }
        EXPECT_EQ(said, 1) << home << ": " << state["log"];
    }
    fs::permissions(path("read-only"), fs::perms::owner_all);  // so TearDown can remove it
}

// Issue 28, item 21: the GUI script's `run tiny packed_cache 999999999 0 1` started although
// `glueprof ab` caps --steps at 100000. Both now take their bounds from ScheduleBounds.h: the
// script refuses what the CLI refuses, and nothing is written to the database.
TEST_F(CliTest, GuiScriptRunTakesTheCliBoundsOfStepsWarmupAndRepeats) {
    const std::string db = path("r.sqlite");
    ASSERT_EQ(run("ab --preset tiny --opt packed_cache --steps 1 --warmup 1 --repeats 1 --db " + db)
                  .exitCode,
              0);
    const std::vector<std::pair<std::string, std::string>> cli = {{"--steps 100001", "--steps"},
                                                                  {"--warmup 100001", "--warmup"},
                                                                  {"--repeats 1001", "--repeats"}};
    for (const auto& [args, option] : cli) {
        Result r = run("ab --preset tiny --opt packed_cache " + args + " --db " + db);
        EXPECT_EQ(r.exitCode, 1) << args << ": " << r.err;
        EXPECT_NE(r.err.find(option), std::string::npos) << args << ": " << r.err;
    }
    const std::vector<std::pair<std::string, std::string>> script = {
        {"run tiny packed_cache 999999999 0 1",
         "run needs 1 to 100000 measured steps per block (as glueprof ab --steps), not 999999999"},
        {"run tiny packed_cache 2 100001 1",
         "run needs 0 to 100000 warm-up steps per arm (as glueprof ab --warmup), not 100001"},
        {"run tiny packed_cache 2 1 1001",
         "run needs 1 to 1000 blocks per arm (as glueprof ab --repeats), not 1001"},
        {"run tiny packed_cache 99999999999999999999 1 1", "not 99999999999999999999"},
        {"run tiny packed_cache 2 x 1",
         "run needs a whole number of warm-up steps per arm, not 'x'"},
        {"run tiny packed_cache 2 1 1 9", "run takes PRESET TOGGLE[,TOGGLE...]"},
        {"run tiny", "run takes PRESET TOGGLE[,TOGGLE...]"}};
    for (const auto& [line, message] : script) {
        std::ofstream(path("bounds.script")) << line << "\n";
        const std::string command = "xvfb-run -a -s '-screen 0 800x600x24' " +
                                    std::string(GLUEPROF_GUI_BINARY) + " --frames 3 --db " + db +
                                    " --script " + path("bounds.script") + " >" + path("g.out") +
                                    " 2>" + path("g.err");
        const int status = std::system(command.c_str());
        const std::string err = slurp(path("g.err"));
        EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2) << line << ": " << err;
        EXPECT_NE(err.find(message), std::string::npos) << line << ": " << err;
    }
    EXPECT_EQ(nlohmann::json::parse(run("list --json --db " + db).out).size(), 2u);  // none added
}
#endif

// Issue 28, item 11: a directory of traces with a symbolic link that loops ended the import with
// "internal error: filesystem error ... Too many levels of symbolic links". The link holds no
// trace: it is passed over in a line naming it, and the directory's traces are imported.
TEST_F(CliTest, ADirectoryWithASymbolicLinkLoopImportsItsTracesAndNamesTheLoop) {
    fs::create_directories(path("td"));
    std::ofstream(path("td/rank0.json"))
        << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, )"
           R"("tid": 1, "ts": 1, "dur": 1}]})";
    fs::create_symlink("loop.json", path("td/loop.json"));
    const std::string db = path("loop.sqlite");
    Result r = run(fmt::format("import {} --db {}", path("td"), db));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(
        r.out.find(fmt::format("skipped '{}': a symbolic link that loops", path("td/loop.json"))),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("imported run 1 from"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    // The loop given by name: one line, exit 2.
    Result named = run(fmt::format("import {} --db {}", path("td/loop.json"), db));
    EXPECT_EQ(named.exitCode, 2) << named.err;
    EXPECT_EQ(std::count(named.err.begin(), named.err.end(), '\n'), 1) << named.err;
    EXPECT_NE(named.err.find("is a symbolic link that loops"), std::string::npos) << named.err;
}

// Issue 28, item 17: `import td --db td/out.sqlite` a second time read its own output database as
// a trace and exited 2 ("is a glueprof trace database"). The output is no trace of its directory.
TEST_F(CliTest, ImportingADirectoryTwiceIntoADatabaseInsideItReadsOnlyTheTraces) {
    fs::create_directories(path("td"));
    for (int rank : {0, 1}) {
        std::ofstream(path(fmt::format("td/rank{}.json", rank)))
            << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, )"
               R"("tid": 1, "ts": 1, "dur": 1}]})";
    }
    const std::string db = path("td/out.sqlite");
    for (int pass = 1; pass <= 2; ++pass) {
        Result r = run(fmt::format("import {} --db {}", path("td"), db));
        ASSERT_EQ(r.exitCode, 0) << "import " << pass << ": " << r.err;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;  // one per trace
        EXPECT_EQ(r.out.find("out.sqlite"), std::string::npos) << r.out;
    }
    EXPECT_EQ(TraceReader(db).listRuns().size(), 4u);
}

}  // namespace
}  // namespace glueprof
