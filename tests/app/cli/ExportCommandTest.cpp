// `glueprof export`: a real run as a Chrome trace and as CSV.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

using Result = testing::CliResult;
using testing::CliTest;

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

    // The CSV export writes two files: when the second may not be written (an SQLite file is
    // never replaced by an output), neither is, and the first keeps what it held.
    std::filesystem::copy_file(db, path("y-steps.csv"));
    {
        std::ofstream old(path("y.csv"));
        old << "kept\n";
    }
    const Result refused = run("export --db " + db + " --format csv --out " + path("y.csv"));
    EXPECT_EQ(refused.exitCode, 2) << refused.err;
    EXPECT_NE(refused.err.find("is an SQLite database"), std::string::npos) << refused.err;
    EXPECT_EQ(slurp(path("y.csv")), "kept\n");
}

}  // namespace
}  // namespace glueprof
