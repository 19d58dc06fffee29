// `glueprof check`: the CI gate on the checked-in baselines, capture loss, and baselines that are
// not what they should be.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "profiler/core/Sqlite.h"
#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

using Result = testing::CliResult;
using testing::CliTest;

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

}  // namespace
}  // namespace glueprof
