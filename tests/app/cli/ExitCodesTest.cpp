// The exit codes every command shares (docs/cli.md): 1 and one line for a usage error or a bad
// number, 2 for bad input, and no file left behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;
using testing::CliTest;

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

}  // namespace
}  // namespace glueprof
