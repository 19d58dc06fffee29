// `glueprof report` (and the other readers of stored runs: `list`, `advise`): every format, and
// stored runs whose label or configuration is damaged.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "profiler/core/Sqlite.h"
#include "profiler/core/TimingMetric.h"
#include "profiler/core/TraceReader.h"
#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;
using testing::CliTest;

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

}  // namespace
}  // namespace glueprof
