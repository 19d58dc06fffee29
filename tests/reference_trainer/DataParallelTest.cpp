// Data parallelism over c10d (Gloo), two real processes on loopback: this test binary starts
// itself twice as ranks 0 and 1 (DataParallel.DISABLED_RankBody, which runs only with the rank
// variables set) and compares what they report.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "profiler/ranks/RankEnvironment.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/Trainer.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {
namespace {

constexpr const char* kReportVariable = "GLUEPROF_TEST_RANK_REPORT";
constexpr int kSteps = 3;

// FNV-1a over every parameter's bytes, in parameter order: equal iff the weights are bit for bit.
std::uint64_t weightsHash(Trainer& trainer) {
    std::uint64_t hash = 1469598103934665603ull;
    for (const torch::Tensor& p : trainer.model()->parameters()) {
        const torch::Tensor bytes = p.detach().contiguous().cpu();
        const auto* data = static_cast<const unsigned char*>(bytes.data_ptr());
        for (std::size_t i = 0; i < bytes.nbytes(); ++i) hash = (hash ^ data[i]) * 1099511628211ull;
    }
    return hash;
}

// A rank: trains kSteps steps of `tiny` with its shard and writes "initial final loss..." to the
// report file. Skipped unless started by the test below.
TEST(DataParallel, DISABLED_RankBody) {
    const char* report = std::getenv(kReportVariable);
    if (report == nullptr) GTEST_SKIP() << "runs only as a rank of the test below";
    const std::optional<RankEnvironment> environment = rankEnvironmentFromProcess();
    ASSERT_TRUE(environment.has_value());
    RankGroup group(*environment, "cpu", 0, std::chrono::seconds(60));
    Trainer trainer(presetConfig("tiny"), nullptr, &group);
    std::ofstream out(report);
    out << weightsHash(trainer);
    std::vector<double> losses;
    for (int step = 0; step < kSteps; ++step) losses.push_back(trainer.step(step).loss);
    out << " " << weightsHash(trainer);
    for (double loss : losses) out << " " << std::hexfloat << loss;
    out << "\n";
}

struct RankReport {
    std::uint64_t initial = 0;
    std::uint64_t final = 0;
    std::vector<std::string> losses;  // hexfloat text: compared bit for bit
};

// Two ranks of DataParallel.DISABLED_RankBody; their reports in rank order.
std::vector<RankReport> runTwoRanks(const std::filesystem::path& dir) {
    const int port = 20000 + static_cast<int>(::getpid() % 20000);
    std::vector<pid_t> pids;
    for (int rank = 0; rank < 2; ++rank) {
        const std::string report = (dir / ("rank-" + std::to_string(rank))).string();
        const pid_t pid = ::fork();
        if (pid == 0) {
            for (const std::string& variable :
                 rankEnvironmentVariables(RankEnvironment{rank, 2, rank, "127.0.0.1", port, ""})) {
                ::putenv(::strdup(variable.c_str()));
            }
            ::setenv(kReportVariable, report.c_str(), 1);
            ::execl("/proc/self/exe", "rank", "--gtest_filter=DataParallel.DISABLED_RankBody",
                    "--gtest_also_run_disabled_tests", nullptr);
            ::_exit(127);
        }
        pids.push_back(pid);
    }
    for (pid_t pid : pids) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a rank failed: " << status;
    }
    std::vector<RankReport> reports;
    for (int rank = 0; rank < 2; ++rank) {
        std::ifstream in(dir / ("rank-" + std::to_string(rank)));
        RankReport r;
        in >> r.initial >> r.final;
        for (std::string loss; in >> loss;) r.losses.push_back(loss);
        reports.push_back(r);
    }
    return reports;
}

// Each rank trains on its own shard (different losses), the gradients are averaged before every
// optimizer step, so both ranks end with the same weights bit for bit, and training moved them.
TEST(DataParallel, TwoGlooRanksTrainOnTheirOwnShardsAndKeepIdenticalWeights) {
    if (std::getenv(kReportVariable) != nullptr) GTEST_SKIP() << "a rank runs only its body";
    std::string pattern = (std::filesystem::temp_directory_path() / "glueprof-dp-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    const std::vector<RankReport> ranks = runTwoRanks(pattern);
    std::filesystem::remove_all(pattern);
    ASSERT_EQ(ranks.size(), 2u);
    ASSERT_EQ(ranks[0].losses.size(), static_cast<std::size_t>(kSteps));
    ASSERT_EQ(ranks[1].losses.size(), static_cast<std::size_t>(kSteps));
    EXPECT_EQ(ranks[0].initial, ranks[1].initial);      // one seed
    EXPECT_EQ(ranks[0].final, ranks[1].final);          // identical after every averaged step
    EXPECT_NE(ranks[0].initial, ranks[0].final);        // and the steps changed them
    EXPECT_NE(ranks[0].losses[0], ranks[1].losses[0]);  // different shards of the data
}

}  // namespace
}  // namespace glueprof
