// `run --nproc` and `ab --nproc`: ranks started, merged and compared rank by rank, refused before
// they start, and a rank that dies.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "profiler/core/TraceReader.h"
#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;
using testing::CliTest;

// How `--device cuda` is refused on a machine without a GPU: the driver's reason in a CUDA build.
#ifdef GLUEPROF_TORCH_CUDA_BUILD
constexpr const char* kNoCudaRefusal = "--device cuda: no CUDA device: ";
#else
constexpr const char* kNoCudaRefusal = "--device cuda: this libtorch is CPU-only";
#endif

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
    // Not leftovers: a launch whose process runs (this test's own PID: a `profile` or another
    // `run --nproc` still writing beside DB), and a rank file of another database beside it.
    const std::string live = fmt::format("{}.{}-0123abcd.rank-0", db, ::getpid());
    const std::string other = db + ".exec-ab-1.sqlite.profile-1-0123abcd.rank-0";
    for (const std::string& file : {live, other}) {
        ASSERT_EQ(run("run --preset tiny --warmup 1 --steps 1 --db " + file).exitCode, 0);
    }
    Result r = run("run --nproc 2 --preset tiny --warmup 1 --steps 1 --db " + db);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(
        r.err.find("merged 1 run(s) that earlier runs (a killed profile, a rank that failed) left"),
        std::string::npos)
        << r.err;
    const std::vector<RunSummary> runs = TraceReader(db).listRuns();
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_FALSE(runs[0].identity.rank.has_value());  // the earlier run, as it was
    EXPECT_EQ(runs[1].identity.rank.value_or(-1), 0);
    EXPECT_EQ(runs[2].identity.rank.value_or(-1), 1);
    EXPECT_EQ(runs[2].identity.abGroup, runs[1].id);
    EXPECT_TRUE(fs::exists(live));
    EXPECT_TRUE(fs::exists(other));
    EXPECT_EQ(rankFilesBeside(db).size(), 2u);
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

}  // namespace
}  // namespace glueprof
