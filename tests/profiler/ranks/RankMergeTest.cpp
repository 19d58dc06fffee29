// The end of a multi-process run without the processes: rank files written through the store, a
// clock per rank, and mergeRankTraces putting them into one database on rank 0's clock — here
// with a rank on another machine (a clock 1 s apart), which one machine's ranks never show.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/ranks/RankClock.h"
#include "profiler/ranks/RankEnvironment.h"
#include "profiler/ranks/RankMerge.h"

namespace glueprof {
namespace {

namespace fs = std::filesystem;
constexpr TimestampNs kSecond = 1000000000;

// An A/B as one rank records it: a baseline and an optimized arm, each with one step [t, t + 100)
// holding an all-reduce [t + 40, t + 60) of sequence number 1, t = `clockNs`.
void writeRankFile(const std::string& path, int rank, TimestampNs clockNs) {
    TraceWriter writer(path);
    RunId group = kStartsAbGroup;
    for (Arm arm : {Arm::kBaseline, Arm::kOptimized}) {
        RunInfo info;
        info.label = std::string("ddp_overlap:") + toString(arm);
        info.identity.abGroup = group;
        info.identity.arm = arm;
        info.identity.toggle = "ddp_overlap";
        info.identity.rank = rank;
        info.identity.worldSize = 2;
        const RunId run = writer.beginRun(info);
        if (group == kStartsAbGroup) group = run;
        const LaneId lane = writer.addLane(run, LaneKind::kHostThread, "main", -1, 1);
        Event e = makeEvent(run, lane, EventKind::kRange, writer.intern("all_reduce"), clockNs + 40,
                            clockNs + 60);
        e.category = Category::kComm;
        e.step = 0;
        e.correlation = 1;
        writer.record(e);
        writer.recordStep(StepRecord{run, StepInfo{0, clockNs, clockNs + 100, false, 1, 2.5, 0}});
        writer.endRun(run, RunStatus::kComplete);
    }
    writer.close();
}

TEST(ClockAlignment, AnotherMachinesClockIsShiftedByTheMedianDifference) {
    // Rank 1's clock runs 1 s behind; the barriers' exits scatter by up to 3 us.
    const std::vector<TimestampNs> rank0 = {1000, 2000, 3000, 4000, 5000};
    std::vector<TimestampNs> rank1;
    const TimestampNs jitter[] = {0, 3000, -1000, 500, 0};
    for (std::size_t k = 0; k < rank0.size(); ++k) rank1.push_back(rank0[k] - kSecond + jitter[k]);
    const RankClock other = estimateRankClock(rank0, rank1, false);
    EXPECT_EQ(other.estimateNs, kSecond);  // the median difference
    EXPECT_EQ(other.offsetNs, kSecond);
    EXPECT_EQ(other.residualNs, 3000);
    const RankClock same = estimateRankClock(rank0, rank1, true);  // one machine: one clock
    EXPECT_EQ(same.estimateNs, kSecond);
    EXPECT_EQ(same.offsetNs, 0);
}

TEST(RankMerge, RanksOnTwoMachinesLandOnRankZerosClockAsOneAbGroup) {
    const fs::path dir =
        fs::temp_directory_path() / ("glueprof-merge-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string db = (dir / "runs.sqlite").string();
    // Both ranks start their step at the same instant; rank 1's clock reads 1 s less.
    writeRankFile(rankTracePath(db, "abc", 0), 0, 5 * kSecond);
    writeRankFile(rankTracePath(db, "abc", 1), 1, 4 * kSecond);
    std::vector<RankClock> clocks(2);
    clocks[1] = estimateRankClock({10 * kSecond}, {9 * kSecond}, false);
    clocks[1].host = "node-b";
    const MergedRanks merged = mergeRankTraces(db, "abc", 2, clocks);
    ASSERT_EQ(merged.runs.size(), 4u);
    EXPECT_TRUE(merged.missingRanks.empty());
    EXPECT_FALSE(fs::exists(rankTracePath(db, "abc", 0)));  // each file removed once merged
    EXPECT_FALSE(fs::exists(rankTracePath(db, "abc", 1)));

    const TraceReader reader(db);
    const std::vector<RunSummary> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 4u);
    for (const RunSummary& run : runs) {
        EXPECT_EQ(run.identity.abGroup, runs[0].id);  // one A/B, every rank's arms
        const TraceModel model = reader.loadRun(run.id);
        ASSERT_EQ(model.steps().size(), 1u);
        EXPECT_EQ(model.steps()[0].startNs, 5 * kSecond) << run.label;  // on rank 0's clock
        for (std::size_t lane = 0; lane < model.lanes().size(); ++lane)
            for (const Event& e : model.eventsOnLane(lane)) EXPECT_EQ(e.startNs, 5 * kSecond + 40);
        const nlohmann::json environment = nlohmann::json::parse(run.environmentJson);
        const bool rank1 = run.identity.rank.value_or(-1) == 1;
        EXPECT_EQ(environment["clock_alignment"]["offset_ns"], rank1 ? kSecond : 0);
        EXPECT_EQ(environment["clock_alignment"]["same_machine_as_rank_0"], !rank1);
    }
    EXPECT_EQ(runs[2].identity.arm, Arm::kBaseline);  // arms keep their roles
    EXPECT_EQ(runs[3].identity.arm, Arm::kOptimized);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace glueprof
