// A data-parallel A/B in the results model: one pair per rank in one group, named by rank 0's
// pair, each rank's arms compared and the ranks of each arm side by side, on every face.
#include <gtest/gtest.h>

#include "app/report/AbPairs.h"
#include "app/report/Results.h"
#include "app/report/ResultsJson.h"
#include "app/report/ResultsMarkdown.h"
#include "app/report/ResultsText.h"
#include "profiler/core/TraceNames.h"
#include "tests/support/TimeUnits.h"

namespace glueprof {
namespace {

using testing_units::kMs;

RunSummary rankRun(RunId id, Arm arm, int rank) {
    RunSummary run;
    run.id = id;
    run.status = "complete";
    run.preset = "tiny";
    run.device = "cpu";
    run.identity.abGroup = 1;
    run.identity.arm = arm;
    run.identity.toggle = "ddp_overlap";
    run.identity.rank = rank;
    run.identity.worldSize = 2;
    return run;
}

// Two blocks of 2 measured steps of `stepMs`, each with a collective of `commMs` (numbered alike
// on every rank) starting `lateMs` into the step.
TraceModel rankTrace(const RunSummary& run, double stepMs, double commMs, double lateMs) {
    TraceModelBuilder b(run);
    const std::size_t lane = b.addLane(LaneKind::kHostThread, "main");
    for (int step = 0; step < 4; ++step) {
        const TimestampNs start = step * 100 * kMs;
        b.addStep(StepInfo{step, start, start + static_cast<TimestampNs>(stepMs * kMs), false,
                           1 + step / 2, 2.0 - 0.1 * step, 0});
        const TimestampNs commStart = start + static_cast<TimestampNs>(lateMs * kMs);
        Event& e = b.addEvent(lane, EventKind::kRange, Category::kComm, names::kAllReduce,
                              commStart, commStart + static_cast<TimestampNs>(commMs * kMs), step);
        e.correlation = step + 1;
    }
    return std::move(b).build();
}

TEST(RankResults, ADataParallelAbIsNamedByRankZerosPairAndComparedRankByRank) {
    const std::vector<RunSummary> runs = {
        rankRun(1, Arm::kBaseline, 0), rankRun(2, Arm::kOptimized, 0),
        rankRun(3, Arm::kBaseline, 1), rankRun(4, Arm::kOptimized, 1)};
    const std::map<std::string, AbPair> pairs = latestAbPairs(runs);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs.at("ddp_overlap").baseline.id, 1);
    EXPECT_EQ(pairs.at("ddp_overlap").optimized.id, 2);
    std::vector<RunId> siblings;
    for (const RunSummary& r : rankSiblings(runs[0], runs)) siblings.push_back(r.id);
    EXPECT_EQ(siblings, (std::vector<RunId>{1, 3}));
    RunSummary alone;
    alone.id = 9;
    EXPECT_EQ(rankSiblings(alone, runs).size(), 1u);

    const TraceModel b0 = rankTrace(runs[0], 50, 20, 10);
    const TraceModel o0 = rankTrace(runs[1], 40, 10, 10);
    const TraceModel b1 = rankTrace(runs[2], 52, 20, 12);
    const TraceModel o1 = rankTrace(runs[3], 41, 10, 13);
    const Results results = buildResults({&b0, &o0}, "", {{&b0, &b1}, {&o0, &o1}});
    ASSERT_EQ(results.comparisons.size(), 1u);
    const Comparison& c = results.comparisons[0];
    ASSERT_EQ(c.rankComparisons.size(), 2u);
    EXPECT_EQ(results.runs.size(), 4u);
    EXPECT_EQ(results.rankSets.size(), 2u);
    EXPECT_TRUE(rankSetsShownAlone(results).empty());
    const RankPairsView view = rankPairsOf(c, results);
    ASSERT_EQ(view.ranks.size(), 2u);
    EXPECT_EQ(view.ranks[1].rank, 1);
    EXPECT_EQ(view.ranks[1].baseline->run.id, 3);
    EXPECT_EQ(view.ranks[1].optimized->run.id, 4);
    EXPECT_DOUBLE_EQ(view.ranks[1].baseline->medianPartMs(GluePart::kComm), 20.0);
    EXPECT_DOUBLE_EQ(view.ranks[1].optimized->medianPartMs(GluePart::kComm), 10.0);
    // Straggler time: rank 1 starts each collective 2 ms (baseline) and 3 ms (optimized) late.
    EXPECT_DOUBLE_EQ(view.baseline->analysis.medianStragglerMs, 2.0);
    EXPECT_DOUBLE_EQ(view.optimized->analysis.medianStragglerMs, 3.0);
    EXPECT_DOUBLE_EQ(view.baseline->analysis.medianSpreadMs, 1.0);  // 52 - median(50, 52)

    const nlohmann::json j = toJson(results);
    ASSERT_EQ(j["comparisons"][0]["ranks"]["per_rank"].size(), 2u);
    EXPECT_EQ(j["comparisons"][0]["ranks"]["per_rank"][1]["exposed_comm_ms"],
              nlohmann::json::parse("[20.0, 10.0]"));
    EXPECT_EQ(j["rank_sets"].size(), 2u);
    EXPECT_NE(renderComparisonTable(results).find("ranks (2 processes"), std::string::npos);
    EXPECT_NE(renderResultsMarkdown(results).find("### Ranks (2 processes"), std::string::npos);

    // One arm alone (run --nproc): its ranks side by side, shown alone.
    const Results one = buildResults({&b0}, "", {{&b0, &b1}});
    ASSERT_EQ(one.rankSets.size(), 1u);
    EXPECT_EQ(rankSetsShownAlone(one).size(), 1u);
    EXPECT_NE(renderRankLines(one, one.rankSets[0]).find("ranks (2 processes"), std::string::npos);
    EXPECT_NE(renderResultsMarkdown(one).find("## Ranks of run 1"), std::string::npos);
}

TEST(RankResults, AnAbIsNamedByItsLowestRankAndARankOfNoJobIsNoRank) {
    // Rank 0's file was lost: rank 1's pair names the A/B.
    const std::vector<RunSummary> withoutRank0 = {rankRun(3, Arm::kBaseline, 1),
                                                  rankRun(4, Arm::kOptimized, 1)};
    const std::map<std::string, AbPair> pairs = latestAbPairs(withoutRank0);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs.at("ddp_overlap").optimized.id, 4);
    // An imported A/B whose traces say "rank 1" of no world: an A/B of one process.
    std::vector<RunSummary> imported = {rankRun(5, Arm::kA, 1), rankRun(6, Arm::kB, 1)};
    for (RunSummary& run : imported) {
        run.identity.abGroup = 5;
        run.identity.worldSize.reset();
    }
    ASSERT_EQ(latestAbPairs(imported).size(), 1u);
    EXPECT_EQ(rankSiblings(imported[0], imported).size(), 1u);
}

}  // namespace
}  // namespace glueprof
