// `glueprof compare` on imported traces, with the report and the gate of the same pair.
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>

#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

using Result = testing::CliResult;
using testing::CliTest;

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
    EXPECT_NE(compared.out.find("not recorded (imported traces"), std::string::npos);
    // A step of these traces has no device time, so the A/B compares host step times, and its
    // header says so (not "device time", as a run's own summary may).
    EXPECT_NE(compared.out.find("metric (median)"), std::string::npos) << compared.out;
    EXPECT_EQ(compared.out.find("metric (median, device time)"), std::string::npos);
    // A run compared with itself is refused by compare and report alike.
    for (const std::string& command : {std::string("compare"), "report --out " + path("self.md")}) {
        const Result self = run(fmt::format("{} --db {} --runs 1,1", command, db));
        EXPECT_EQ(self.exitCode, 1) << command << ": " << self.err;
        EXPECT_NE(self.err.find("a run compared with itself"), std::string::npos) << self.err;
    }
    Result json = run(fmt::format("compare --db {} --runs 1,2 --json", db));
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const nlohmann::json j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["diff"]["reference_steps"], 2);

    // The user's own CI: a baseline from this pair, then the gate on it.
    const std::string baseline = path("baseline.json");
    const Result updated =
        run(fmt::format("check --db {} --baseline {} --update-baseline", db, baseline));
    ASSERT_EQ(updated.exitCode, 0) << updated.err;
    // Two steps a trace give no interval: the baseline can hold no speedup floor, and says so.
    EXPECT_NE(updated.out.find("note: 'trace_compare' has no speedup floor"), std::string::npos)
        << updated.out;
    Result gate = run(fmt::format("check --db {} --baseline {}", db, baseline));
    EXPECT_EQ(gate.exitCode, 0) << gate.out << gate.err;
    EXPECT_NE(gate.out.find("trace_compare"), std::string::npos) << gate.out;
    // Against a baseline for another preset, this database's A/B is named as not checked.
    {
        std::ofstream other(path("other.json"));
        other << R"({"format": "glueprof-baseline-1", "preset": "tiny", "device": "cpu", )"
                 R"("toggles": {"packed_cache": {}}})";
    }
    const Result otherPreset =
        run(fmt::format("check --db {} --baseline {}", db, path("other.json")));
    EXPECT_EQ(otherPreset.exitCode, 3) << otherPreset.out << otherPreset.err;
    EXPECT_NE(otherPreset.out.find("not checked: the A/B 'trace_compare' (runs 1 vs 2) ran preset "
                                   "'imported'"),
              std::string::npos)
        << otherPreset.out;
    EXPECT_EQ(run(fmt::format("report --db {} --out {}", db, path("r.html"))).exitCode, 0);
}

}  // namespace
}  // namespace glueprof
