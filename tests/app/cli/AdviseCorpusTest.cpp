// The advisor's corpus (issue 54): every real trace of tests/fixtures/import has a file in
// tests/fixtures/import/expected, written by reading the trace as a GPU engineer would — the first
// finding ("none" where no finding may be made), the findings that must be there and those that
// must not, and what a finding's fix must say. Each trace is imported and advised as a user would
// (`import`, `advise --json`), and its step attribution (`report --format json`) must add up to
// each step with at most 5% unattributed.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/app/cli/CliHarness.h"

namespace glueprof::testing {
namespace {

struct ExpectedFindings {
    std::string fixture;  // its path under tests/fixtures/import, as importFixture takes it
    std::string first;    // a rule id, or "none"
    std::vector<std::string> present, absent;
    // "fix RULE: TEXT": RULE's finding is there and its fix says TEXT.
    std::vector<std::pair<std::string, std::string>> fixes;
};

std::vector<std::string> idsOf(const std::string& list) {
    std::vector<std::string> ids;
    std::stringstream in(list);
    std::string id;
    while (std::getline(in, id, ',')) {
        id.erase(0, id.find_first_not_of(' '));
        id.erase(id.find_last_not_of(' ') + 1);
        if (!id.empty()) ids.push_back(id);
    }
    return ids;
}

std::vector<ExpectedFindings> corpus() {
    const std::filesystem::path root =
        std::filesystem::path(GLUEPROF_SOURCE_DIR) / "tests/fixtures/import";
    std::vector<ExpectedFindings> all;
    for (const auto& entry : std::filesystem::directory_iterator(root / "expected")) {
        const std::string file = entry.path().filename().string();
        const std::string suffix = ".findings";
        if (file.size() <= suffix.size() || file.substr(file.size() - suffix.size()) != suffix)
            continue;
        ExpectedFindings e;
        const std::string trace = file.substr(0, file.size() - suffix.size());
        for (const char* dir : {"kineto/", "nsys/"}) {
            if (std::filesystem::exists(root / dir / trace) ||
                std::filesystem::exists(root / dir / (trace + ".gz")))
                e.fixture = dir + trace;
        }
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            if (line.rfind("first:", 0) == 0) {
                const std::vector<std::string> first = idsOf(line.substr(6));
                e.first = first.empty() ? "" : first.front();
            }
            if (line.rfind("present:", 0) == 0) e.present = idsOf(line.substr(8));
            if (line.rfind("absent:", 0) == 0) e.absent = idsOf(line.substr(7));
            if (line.rfind("fix ", 0) == 0 && line.find(": ") != std::string::npos)
                e.fixes.push_back(
                    {line.substr(4, line.find(": ") - 4), line.substr(line.find(": ") + 2)});
        }
        all.push_back(e);
    }
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.fixture < b.fixture; });
    return all;
}

// The first object under `key` anywhere in a report (a run's analysis sits under its run).
const nlohmann::json* findKey(const nlohmann::json& j, const std::string& key) {
    if (j.is_object() && j.contains(key)) return &j.at(key);
    if (j.is_structured()) {
        for (const auto& value : j) {
            if (const nlohmann::json* found = findKey(value, key)) return found;
        }
    }
    return nullptr;
}

// Every trace of the fixtures has its expected findings, and each names a fixture and a first.
TEST_F(CliTest, EveryRealTraceHasItsExpectedFindings) {
    const std::vector<ExpectedFindings> expected = corpus();
    std::set<std::string> covered;
    for (const ExpectedFindings& e : expected) {
        EXPECT_FALSE(e.fixture.empty()) << "an expected-findings file names no fixture";
        EXPECT_FALSE(e.first.empty()) << e.fixture;
        covered.insert(std::filesystem::path(e.fixture).filename().string());
    }
    const std::filesystem::path root =
        std::filesystem::path(GLUEPROF_SOURCE_DIR) / "tests/fixtures/import";
    for (const char* dir : {"kineto", "nsys"}) {
        for (const auto& entry : std::filesystem::directory_iterator(root / dir)) {
            std::string name = entry.path().filename().string();
            if (name.size() > 10 && name.substr(name.size() - 10) == ".sqlite.gz")
                name.resize(name.size() - 3);
            EXPECT_EQ(covered.count(name), 1u) << name << " has no expected-findings file";
        }
    }
}

TEST_F(CliTest, TheAdvisorsFirstFindingOnEachRealTraceIsTheOneAnEngineerNames) {
    for (const ExpectedFindings& e : corpus()) {
        SCOPED_TRACE(e.fixture);
        const std::string db = path(std::filesystem::path(e.fixture).filename().string() + ".db");
        ASSERT_EQ(run("import " + sharedFixture(e.fixture) + " --db " + db).exitCode, 0);
        const CliResult advised = run("advise --db " + db + " --json");
        ASSERT_EQ(advised.exitCode, 0) << advised.err;
        const nlohmann::json findings = nlohmann::json::parse(advised.out).at("findings");
        std::set<std::string> rules;
        for (const nlohmann::json& f : findings) rules.insert(f.at("rule").get<std::string>());
        if (e.first == "none") {
            EXPECT_TRUE(findings.empty()) << findings.dump();
        } else {
            ASSERT_FALSE(findings.empty());
            EXPECT_EQ(findings.at(0).at("rule").get<std::string>(), e.first);
        }
        for (const std::string& rule : e.present) EXPECT_EQ(rules.count(rule), 1u) << rule;
        for (const std::string& rule : e.absent) EXPECT_EQ(rules.count(rule), 0u) << rule;
        for (const auto& [rule, text] : e.fixes) {
            bool said = false;
            for (const nlohmann::json& f : findings)
                said = said || (f.at("rule") == rule &&
                                f.at("fix").get<std::string>().find(text) != std::string::npos);
            EXPECT_TRUE(said) << rule << "'s fix does not say " << text;
        }
        const CliResult report =
            run("report --db " + db + " --format json --out " + path("report.json"));
        ASSERT_EQ(report.exitCode, 0) << report.err;
        std::ifstream in(path("report.json"));
        const nlohmann::json doc = nlohmann::json::parse(in);
        const nlohmann::json* attribution = findKey(doc, "step_attribution");
        // Every GPU trace is attributed; a CPU-only trace has no device time to attribute.
        const bool cpuOnly = e.fixture.find("cpu") != std::string::npos;
        if (cpuOnly) {
            EXPECT_EQ(attribution, nullptr);
            continue;
        }
        ASSERT_NE(attribution, nullptr);
        ASSERT_FALSE(attribution->at("steps").empty());
        const bool recorded = attribution->at("host_coverage").at("recorded").get<bool>();
        double meanWall = 0.0, steps = 0.0;
        for (const nlohmann::json& step : attribution->at("steps")) {
            const double wall = step.at("wall_ms").get<double>();
            double sum = 0.0;
            for (const auto& [cause, ms] : step.at("parts_ms").items()) sum += ms.get<double>();
            EXPECT_NEAR(sum, wall, wall * 0.001);
            EXPECT_LE(step.at("parts_ms").at("unattributed").get<double>(), wall * 0.05);
            // Where the host side is recorded, no idle is left as "not recorded".
            if (recorded) EXPECT_EQ(step.at("parts_ms").at("host_unrecorded").get<double>(), 0.0);
            if (step.at("device") == attribution->at("steps").at(0).at("device")) {
                meanWall += wall;
                steps += 1.0;
            }
        }
        meanWall /= steps;
        // No two findings claim the same time: the savings of the findings that claim causes add
        // up to at most the mean measured step.
        double claimed = 0.0;
        for (const nlohmann::json& f : findings)
            if (!f.at("claims").empty()) claimed += f.at("saving_ms_per_step").get<double>();
        EXPECT_LE(claimed, meanWall * (1.0 + 1e-9));
    }
}

// Profiles of this project's own programs, read as an engineer would. A Hugging Face MoE
// (Mixtral's architecture) with transformers' eager experts loop: per layer a nonzero over the
// experts hit, per expert a bool read and a torch.where — host reads a GPU would wait for, found in
// the MoE block as one pattern, with the grouped fix (experts_implementation="grouped_mm"). A loop
// whose DataLoader tokenizes on the training thread: three quarters of each step loading data, the
// first finding, with the workers' fix; its host time attributed to the nanosecond.
TEST_F(CliTest, TheAdvisorNamesThePerExpertReadsOfAHuggingFaceMoeAndADataLoaderBoundLoop) {
    const std::string python = GLUEPROF_TEST_PYTHON;
    if (python.empty()) GTEST_SKIP() << "built without GLUEPROF_PYTHON: no python to profile";
    const std::string examples = std::string(GLUEPROF_SOURCE_DIR) + "/examples/python/";
    const auto findingsOf = [&](const std::string& db, const std::string& program) {
        const CliResult r = run("profile --db " + db + " -- " + python + " " + examples + program);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        const CliResult advised = run("advise --db " + db + " --json");
        EXPECT_EQ(advised.exitCode, 0) << advised.err;
        return nlohmann::json::parse(advised.out).at("findings");
    };

    const nlohmann::json moe = findingsOf(path("moe.sqlite"), "hf_moe_train.py --steps 3");
    const nlohmann::json* reads = nullptr;
    for (const nlohmann::json& f : moe) {
        for (const nlohmann::json& ref : f.at("refs")) {
            if (f.at("rule") == "repeated_would_syncs" && ref.at("role") == "range" &&
                ref.at("name") == "MoE block: MixtralSparseMoeBlock")
                reads = &f;
        }
    }
    ASSERT_NE(reads, nullptr) << moe.dump();
    std::set<std::string> ops;
    for (const nlohmann::json& ref : reads->at("refs"))
        if (ref.at("role") == "op") ops.insert(ref.at("name").get<std::string>());
    // 2 layers x (1 nonzero + 8 experts x (a bool read, a where)) per pass, forward only.
    EXPECT_EQ(ops.count("aten::nonzero_numpy"), 1u) << reads->dump();
    EXPECT_EQ(ops.count("aten::is_nonzero"), 1u) << reads->dump();
    EXPECT_NE(reads->at("fix").get<std::string>().find("grouped_mm"), std::string::npos);

    const nlohmann::json loader =
        findingsOf(path("loader.sqlite"), "loader_bound_train.py --steps 6");
    ASSERT_FALSE(loader.empty());
    EXPECT_EQ(loader.at(0).at("rule"), "data_on_step_thread") << loader.dump();
    EXPECT_NE(loader.at(0).at("fix").get<std::string>().find("num_workers"), std::string::npos);
    const CliResult report =
        run("report --db " + path("loader.sqlite") + " --format json --out " + path("loader.json"));
    ASSERT_EQ(report.exitCode, 0) << report.err;
    std::ifstream in(path("loader.json"));
    const nlohmann::json loaderDoc = nlohmann::json::parse(in);
    const nlohmann::json* host = findKey(loaderDoc, "host_step_attribution");
    ASSERT_NE(host, nullptr);
    for (const nlohmann::json& step : host->at("steps")) {
        double sum = 0.0;
        for (const auto& [cause, ms] : step.at("parts_ms").items()) sum += ms.get<double>();
        EXPECT_NEAR(sum, step.at("wall_ms").get<double>(), 1e-9);
        EXPECT_GT(step.at("parts_ms").at("data").get<double>(), 0.5 * sum);
    }
}

}  // namespace
}  // namespace glueprof::testing
