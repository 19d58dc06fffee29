// The pipeline simulator: the RoundPipe artifact's published 1.7B vector, hand-checkable small
// cases for each schedule, the analytic GPipe/1F1B bubble, the partitioner and the cost file.
// Bubbles are computed by the same analyzer that reads executed pipelines, from a real SQLite
// trace.
#include <gtest/gtest.h>

#include <filesystem>

#include "analyzers/PipelineBubbles.h"
#include "optimizations/pipeline_schedule/CostFile.h"
#include "optimizations/pipeline_schedule/Partitioner.h"
#include "optimizations/pipeline_schedule/PipelineSimulator.h"
#include "optimizations/pipeline_schedule/SimulationTrace.h"
#include "profiler/core/TraceReader.h"

namespace glueprof::pipeline {
namespace {

namespace fs = std::filesystem;

// Simulates, records into a fresh database, reads it back and runs the bubble analyzer.
BubbleResult bubblesOf(const SimulationSpec& spec, SimulationResult* out = nullptr) {
    const SimulationResult result = simulate(spec);
    if (out != nullptr) *out = result;
    const fs::path db =
        fs::temp_directory_path() /
        ("glueprof-sim-" +
         std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".sqlite");
    fs::remove(db);
    RunId run = 0;
    {
        TraceWriter writer(db.string());
        run = recordSimulation(writer, spec, result,
                               std::string("simulate:") + toString(spec.schedule), "test");
        writer.close();
    }
    const TraceModel model = TraceReader(db.string()).loadRun(run);
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix);
    return analyzeBubbles(model);
}

SimulationSpec artifact(Schedule schedule) {
    const CostFile file =
        loadCostFile(std::string(GLUEPROF_SOURCE_DIR) + "/assets/pipeline/roundpipe-1.7b.json");
    SimulationSpec spec;
    spec.schedule = schedule;
    spec.workers = file.workers;
    spec.microbatches = file.microbatches;
    spec.costs = file.costs;
    if (schedule == Schedule::kRoundPipe) {
        spec.forwardPartition = file.partitions.at("roundpipe-forward");
        spec.backwardPartition = file.partitions.at("roundpipe-backward");
    } else {
        spec.forwardPartition = file.partitions.at("looped-bfs");
    }
    return spec;
}

TEST(PipelineSimulatorTest, ReproducesTheArtifactsPublished17BCase) {
    SimulationResult looped;
    const BubbleResult l = bubblesOf(artifact(Schedule::kLoopedBfs), &looped);
    EXPECT_NEAR(looped.makespanMs, 2467.27, 0.01);
    EXPECT_NEAR(l.ratio * 100.0, 25.01, 0.1);
    EXPECT_EQ(l.workers, 8u);
    SimulationResult round;
    const BubbleResult r = bubblesOf(artifact(Schedule::kRoundPipe), &round);
    EXPECT_NEAR(round.makespanMs, 2286.02, 0.01);
    EXPECT_NEAR(r.ratio * 100.0, 19.07, 0.1);
    // Each part of the breakdown against the artifact's pp-simulate log (ms, summed over the
    // workers), independently: none is computed from the others.
    auto ms = [](TimestampNs ns) { return static_cast<double>(ns) / 1e6; };
    EXPECT_NEAR(ms(l.fillNs), 252.812, 0.01);
    EXPECT_NEAR(ms(l.switchNs), 2899.349, 0.01);
    EXPECT_NEAR(ms(l.drainNs), 1087.175, 0.01);
    EXPECT_NEAR(ms(l.intraNs), 697.8, 0.01);
    EXPECT_NEAR(ms(r.fillNs), 1373.5395, 0.01);
    EXPECT_NEAR(ms(r.switchNs), 0.0, 0.01);
    EXPECT_NEAR(ms(r.drainNs), 1372.9785, 0.01);
    EXPECT_NEAR(ms(r.intraNs), 740.586, 0.01);
}

// P workers, M micro-batches, unit costs (f = 1, b = 1: a backward with its recompute takes 2), no
// head, no hop.
SimulationSpec unit(Schedule schedule, int workers, int microbatches, std::vector<int> partition) {
    SimulationSpec spec;
    spec.schedule = schedule;
    spec.workers = workers;
    spec.microbatches = microbatches;
    spec.forwardPartition = std::move(partition);
    int layers = 0;
    for (int n : spec.forwardPartition) layers += n;
    spec.costs = PipelineCosts::uniform(layers, 1.0, 1.0, 0.0, 0.0, 0.0);
    return spec;
}

TEST(PipelineSimulatorTest, HandCheckedTwoWorkerTwoMicrobatchCases) {
    // GPipe: w0 F(0,0)[0,1] F(0,1)[1,2]; w1 F(1,0)[1,2] F(1,1)[2,3] B(1,0)[3,5] B(1,1)[5,7];
    // w0 B(0,0)[5,7] B(0,1)[7,9]. Busy 6 + 6 = 12 of 2 x 9: bubble 6/18.
    SimulationResult g;
    const BubbleResult gb = bubblesOf(unit(Schedule::kGPipe, 2, 2, {1, 1}), &g);
    EXPECT_DOUBLE_EQ(g.makespanMs, 9.0);
    EXPECT_NEAR(gb.ratio, 6.0 / 18.0, 1e-9);
    // 1F1B: w0 warms up with 2 forwards (P - 0), w1 with 1: w1 F(1,0)[1,2] B(1,0)[2,4] F(1,1)[4,5]
    // B(1,1)[5,7]; w0 F(0,0)[0,1] F(0,1)[1,2] B(0,0)[4,6] B(0,1)[7,9]. Makespan 9 as well.
    SimulationResult o;
    bubblesOf(unit(Schedule::kOneFOneB, 2, 2, {1, 1}), &o);
    EXPECT_DOUBLE_EQ(o.makespanMs, 9.0);
    // Looped-BFS with 4 one-layer stages on 2 workers: w0 runs stages 0 and 2, w1 stages 1 and 3.
    // w0: F(0,0)[0,1] F(0,1)[1,2] F(2,0)[2,3] F(2,1)[3,4]; w1: F(1,0)[1,2] F(1,1)[2,3] F(3,0)[3,4]
    // F(3,1)[4,5] B(3,1)[5,7] B(3,0)[7,9]; w0: B(2,1)[7,9] B(2,0)[9,11]; w1: B(1,1)[9,11]
    // B(1,0)[11,13]; w0: B(0,1)[11,13] B(0,0)[13,15]. Makespan 15, busy 12 + 12 of 30.
    SimulationResult b;
    const BubbleResult bb = bubblesOf(unit(Schedule::kLoopedBfs, 2, 2, {1, 1, 1, 1}), &b);
    EXPECT_DOUBLE_EQ(b.makespanMs, 15.0);
    EXPECT_NEAR(bb.ratio, 6.0 / 30.0, 1e-9);
    // RoundPipe, forward 2 x 1 layer, backward head + 2 x 1 layer, head f = b = 0.5:
    // round 0 (mb 0, 1): F0 on w0 [0,1] [1,2]; F1 on w1 [1,2] [2,3]; the head on w0 (the job
    // counter goes on: 2 mod 2) mb0 [2,3] (0.5 head forward + 0.5 backward), mb1 [3,4]; B1 on w1
    // (recompute then backward) mb0 [3,5], mb1 [5,7]; B2 on w0 mb0 [4,6] (after B1 mb0 at 5), mb1
    // [6,8]. Makespan 8.
    SimulationSpec rp = unit(Schedule::kRoundPipe, 2, 2, {1, 1});
    rp.backwardPartition = {0, 1, 1};
    rp.costs.headForwardMs = 0.5;
    rp.costs.headBackwardMs = 0.5;
    SimulationResult r;
    bubblesOf(rp, &r);
    EXPECT_DOUBLE_EQ(r.makespanMs, 8.0);
    int headForwards = 0;
    for (const SimOp& op : r.ops) {
        if (op.kind == SimOp::Kind::kForward && op.stage == 0 && op.worker == 0 &&
            op.startMs >= 2.0)
            ++headForwards;
    }
    EXPECT_EQ(headForwards, 2);  // the head is its own fused stage on the next worker in the round
}

// The artifact's published 235B Looped-BFS case, whose partition starts (and ends) with an empty
// stage: P = 8, M = 16, 94 layers one per stage between them (pp-simulate/run.sh).
SimulationSpec artifact235bLoopedBfs() {
    SimulationSpec spec;
    spec.schedule = Schedule::kLoopedBfs;
    spec.workers = 8;
    spec.microbatches = 16;
    spec.forwardPartition.assign(96, 1);
    spec.forwardPartition.front() = 0;
    spec.forwardPartition.back() = 0;
    spec.costs = PipelineCosts::uniform(94, 43.016, 58.376, 42.444, 43.294, 3.2);
    return spec;
}

TEST(PipelineSimulatorTest, AnEmptyFirstStageHoldsItsPlaceButEndsNothing) {
    // P = 2, M = 2, f = b = 1 per layer, head 1 / 1, hop 1. Stage 0 (0 layers) on worker 0, stage
    // 1 (2 layers and the head) on worker 1: F1 = 3, its backward = recompute 2 + backward 2 +
    // head 1 = 5. Worker 1: F1m0 [1, 4) after the hop from the empty F0m0, F1m1 [4, 7), B1m1
    // [7, 12), B1m0 [12, 17). Worker 0's empty backwards follow a hop later, B0m0 at 18: it holds
    // its place (the hop into it is charged) but, as in the artifact, whose makespan comes from
    // per-layer events, it ends nothing: the makespan is 17.
    auto spec = [](std::vector<int> partition) {
        SimulationSpec s = unit(Schedule::kLoopedBfs, 2, 2, std::move(partition));
        int layers = 0;
        for (int n : s.forwardPartition) layers += n;
        s.costs = PipelineCosts::uniform(layers, 1.0, 1.0, 1.0, 1.0, 1.0);
        return s;
    };
    const SimulationResult empty = simulate(spec({0, 2}));
    EXPECT_DOUBLE_EQ(empty.makespanMs, 17.0);
    EXPECT_DOUBLE_EQ(empty.iterationEndMs.at(0), 17.0);
    EXPECT_DOUBLE_EQ(empty.hopExposedMs, 3.0);  // the hops into and out of the empty stage count
    double lastEnd = 0.0;
    for (const SimOp& op : empty.ops) lastEnd = std::max(lastEnd, op.endMs);
    EXPECT_DOUBLE_EQ(lastEnd, 18.0);  // the empty backward is still in the plan
    EXPECT_DOUBLE_EQ(simulate(spec({0, 1, 1, 1})).makespanMs, 21.0);
    EXPECT_DOUBLE_EQ(simulate(spec({1, 1, 1, 1})).makespanMs, 25.0);  // no empty stage: as before

    // The artifact's published 235B Looped-BFS case: its log says 28575.7140 ms.
    EXPECT_NEAR(simulate(artifact235bLoopedBfs()).makespanMs, 28575.714, 0.01);
}

// Issue 30, item 7: the artifact's t = 0 is the start of its simulation, where the first stage
// starts even when it is empty; its fill (compute_bubble_breakdown) is each worker's idle from
// there to its first per-layer event, of which an empty stage has none. So when the first stage is
// empty, every worker's fill includes the hops out of it.
TEST(PipelineSimulatorTest, AnEmptyFirstStageStillStartsTheFillAtTheSimulationsStart) {
    // P = 2, M = 2, f = b = 1 per layer, head 1 / 1, hop 1, stages 0, 1, 1, 1 (the last one with
    // the head): worker 0 runs stages 0 and 2, worker 1 stages 1 and 3. Ranges (F forward, R
    // recompute, B backward; stage, micro-batch):
    //   w0: F0m0, F0m1 empty at 0; F2m0 [3,4) F2m1 [4,5); R2m1 [13,14) B2m1 [14,15);
    //       R2m0 [16,17) B2m0 [17,18); B0m1, B0m0 empty at 19 and 22;
    //   w1: F1m0 [1,2) (a hop after the empty F0m0) F1m1 [2,3) F3m0 [5,7) F3m1 [7,9);
    //       R3m1 [9,10) B3m1 [10,12) R3m0 [12,13) B3m0 [13,15) R1m1 [16,17) B1m1 [17,18)
    //       R1m0 [19,20) B1m0 [20,21).
    // t = 0 at 0, makespan 21, busy 6 + 16 of 42: bubble 20. Fill: w0 3 (to F2m0), w1 1 (to F1m0,
    // the hop out of the empty stage) = 4; counted from the first range (1), as before, it was 2
    // of a bubble of 18 in 40. Switch (to the first backward, less the busy time in between): w0
    // from its 2nd warm-up forward's end 5 to 14, less R2m1: 8; w1 from its 1st's end 2 to 10,
    // less F1m1, F3m0, F3m1, R3m1: 2; 10 in all. Drain: w0 21 - 18 = 3, w1 0. Intra 20 - 4 - 10 -
    // 3 = 3 (w0 [15,16), w1 [15,16) and [18,19)).
    SimulationSpec spec = unit(Schedule::kLoopedBfs, 2, 2, {0, 1, 1, 1});
    spec.costs = PipelineCosts::uniform(3, 1.0, 1.0, 1.0, 1.0, 1.0);
    const BubbleResult b = bubblesOf(spec);
    auto ms = [](TimestampNs ns) { return static_cast<double>(ns) / 1e6; };
    EXPECT_NEAR(ms(b.makespanNs), 21.0, 1e-9);
    EXPECT_NEAR(ms(b.bubbleNs), 20.0, 1e-9);
    EXPECT_NEAR(b.ratio, 20.0 / 42.0, 1e-9);
    EXPECT_NEAR(ms(b.fillNs), 4.0, 1e-9);
    EXPECT_NEAR(ms(b.switchNs), 10.0, 1e-9);
    EXPECT_NEAR(ms(b.drainNs), 3.0, 1e-9);
    EXPECT_NEAR(ms(b.intraNs), 3.0, 1e-9);

    // The 235B case against the artifact's log: every part of the breakdown, the fill's eight
    // 3.2 ms hops (one per worker) included: fill 1319.6480 ms (0.5773%), bubble 4.3937%.
    const BubbleResult big = bubblesOf(artifact235bLoopedBfs());
    EXPECT_NEAR(ms(big.makespanNs), 28575.714, 0.01);
    EXPECT_NEAR(ms(big.bubbleNs), 10044.272, 0.01);
    EXPECT_NEAR(big.ratio * 100.0, 4.3937, 0.00005);
    EXPECT_NEAR(ms(big.fillNs), 1319.648, 0.01);
    EXPECT_NEAR(big.share(big.fillNs) * 100.0, 0.5773, 0.00005);
    EXPECT_NEAR(ms(big.switchNs), 4139.042, 0.01);
    EXPECT_NEAR(ms(big.drainNs), 4499.648, 0.01);
    EXPECT_NEAR(ms(big.intraNs), 85.934, 0.01);
}

// Balanced stages, no hop, no recompute: GPipe's and 1F1B's bubble is (P - 1) / (M + P - 1).
TEST(PipelineSimulatorTest, GpipeAndOneFOneBMatchTheAnalyticBubble) {
    for (Schedule schedule : {Schedule::kGPipe, Schedule::kOneFOneB}) {
        for (int p : {2, 4}) {
            for (int m : {4, 8}) {
                SimulationSpec spec =
                    unit(schedule, p, m, std::vector<int>(static_cast<std::size_t>(p), 2));
                spec.costs.recomputeMs.assign(spec.costs.layers(), 0.0);
                const BubbleResult b = bubblesOf(spec);
                EXPECT_NEAR(b.ratio, static_cast<double>(p - 1) / (m + p - 1), 1e-9)
                    << toString(schedule) << " P=" << p << " M=" << m;
            }
        }
    }
}

TEST(PipelineSimulatorTest, IterationsWaitForTheSynchronousOptimizerButNotTheAsynchronousOne) {
    SimulationSpec spec = artifact(Schedule::kRoundPipe);
    spec.iterations = 2;
    spec.costs.optimizerMs = 100.0;
    const SimulationResult sync = simulate(spec);
    spec.optimizer = OptimizerMode::kAsynchronous;
    const SimulationResult async = simulate(spec);
    ASSERT_EQ(sync.iterationEndMs.size(), 2u);
    EXPECT_NEAR(sync.iterationEndMs[0], 2286.02, 0.01);
    double secondStart = 1e18;
    for (const SimOp& op : sync.ops) {
        if (op.iteration == 1) secondStart = std::min(secondStart, op.startMs);
    }
    EXPECT_GE(secondStart, sync.iterationEndMs[0] + 100.0 - 1e-9);
    EXPECT_LT(async.makespanMs, sync.makespanMs - 100.0);  // stale weights: no wait at all
}

TEST(PipelineSimulatorTest, ThePartitionerFindsTheArtifactsRoundPipePartitions) {
    const CostFile file =
        loadCostFile(std::string(GLUEPROF_SOURCE_DIR) + "/assets/pipeline/roundpipe-1.7b.json");
    const RoundPipePartition p = roundPipePartition(file.costs);
    EXPECT_EQ(p.forward, file.partitions.at("roundpipe-forward"));
    EXPECT_EQ(p.backward, file.partitions.at("roundpipe-backward"));
    EXPECT_EQ(loopedBfsPartition(28, 8), file.partitions.at("looped-bfs"));
    // A memory cap of 5 layers splits the forward into more stages.
    MemoryCap cap{std::vector<double>(28, 1.0), 5.0};
    const RoundPipePartition capped = roundPipePartition(file.costs, cap);
    for (int n : capped.forward) EXPECT_LE(n, 5);
    EXPECT_GT(capped.forward.size(), p.forward.size());
}

// The message of the std::invalid_argument F throws, "" when it throws none.
template <typename F>
std::string message(F&& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(PipelineSimulatorTest, BadSpecsAndCostFilesSayWhatToChange) {
    EXPECT_NE(message([] {
                  simulate(unit(Schedule::kGPipe, 2, 2, {1, 1, 1}));
              }).find("one stage per worker"),
              std::string::npos);
    EXPECT_NE(message([] {
                  simulate(unit(Schedule::kLoopedBfs, 2, 2, {1, 1, 1}));
              }).find("multiple of 2 workers"),
              std::string::npos);
    EXPECT_NE(message([] {
                  simulate(unit(Schedule::kRoundPipe, 2, 2, {1, 1}));
              }).find("backward partition is empty"),
              std::string::npos);
    EXPECT_NE(message([] {
                  parseSchedule("zigzag");
              }).find("choose gpipe, 1f1b, looped-bfs or roundpipe"),
              std::string::npos);
    EXPECT_NE(
        message([] {
            parseCostFile(
                "{\"format\": \"glueprof-pipeline-costs-1\", \"layers\": 2, \"forward_ms\": [1], "
                "\"backward_ms\": 1, \"head_forward_ms\": 0, \"head_backward_ms\": 0}",
                "c.json");
        }).find("cost file 'c.json': 'forward_ms' must be a number or an array of 2 numbers"),
        std::string::npos);
    EXPECT_NE(
        message([] { loadCostFile("/nonexistent/costs.json"); }).find("cannot read the cost file"),
        std::string::npos);
}

// Issue 17, item 7: cost files had no upper bounds (a million layers ran for minutes at 4.7 GB;
// 2^40 layers was "must be a positive integer").
TEST(PipelineSimulatorTest, CostFileCountsHaveTheFlagsBoundsAndASimulationItsSize) {
    auto costFile = [](const std::string& fields) {
        return "{\"format\": \"glueprof-pipeline-costs-1\", " + fields +
               ", \"forward_ms\": 1, \"backward_ms\": 1, \"head_forward_ms\": 0, "
               "\"head_backward_ms\": 0}";
    };
    auto error = [&](const std::string& fields) {
        return message([&] { parseCostFile(costFile(fields), "c.json"); });
    };
    EXPECT_NE(error("\"layers\": 1000000").find("'layers' is 1000000, more than the 65536"),
              std::string::npos);
    EXPECT_NE(error("\"layers\": 1099511627776").find("'layers' is 1099511627776"),
              std::string::npos);
    EXPECT_NE(error("\"layers\": 4, \"microbatches\": 2000000").find("more than the 1048576"),
              std::string::npos);
    EXPECT_NE(error("\"layers\": 4, \"workers\": 1025").find("more than the 1024"),
              std::string::npos);
    EXPECT_NE(error("\"layers\": -1").find("must be a positive integer"), std::string::npos);
    EXPECT_NE(error("\"layers\": 4, \"partitions\": {\"gpipe\": [4, 4294967296]}")
                  .find("not a layer count from 0 to 65536"),
              std::string::npos);
    EXPECT_EQ(parseCostFile(costFile("\"layers\": 65536"), "c.json").costs.layers(), 65536u);
    // Found by the CLI fuzz harness: a "source" that is no string was an internal error, and a cost
    // of 1e308 ms overflowed the nanosecond timeline.
    EXPECT_NE(error("\"layers\": 4, \"source\": true").find("'source' must be a string"),
              std::string::npos);
    EXPECT_NE(message([&] {
                  parseCostFile(
                      "{\"format\": \"glueprof-pipeline-costs-1\", \"layers\": 1, "
                      "\"forward_ms\": 1e308, \"backward_ms\": 1, "
                      "\"head_forward_ms\": 0, \"head_backward_ms\": 0}",
                      "c.json");
              }).find("'forward_ms' must be a number of milliseconds from 0 to 1000000"),
              std::string::npos);
    SimulationSpec slowHop = unit(Schedule::kGPipe, 2, 2, {1, 1});
    slowHop.costs.hopMs = 1e300;
    EXPECT_NE(message([&] { simulate(slowHop); }).find("costs must be from 0 to 1000000 ms"),
              std::string::npos);

    SimulationSpec fits = unit(Schedule::kGPipe, 2, 16, std::vector<int>(28, 1));
    fits.iterations = 1000;
    EXPECT_EQ(simulatedOpBound(fits), 3 * 28 * 16 * 1000);
    EXPECT_EQ(simulationSizeProblem(fits), "");  // 1,344,000 ops
    SimulationSpec wide = unit(Schedule::kGPipe, 2, 100, std::vector<int>(60001, 0));
    const std::string tooLarge = simulationSizeProblem(wide);
    EXPECT_NE(tooLarge.find("up to 18000300 ops"), std::string::npos) << tooLarge;
    EXPECT_NE(tooLarge.find("fewer micro-batches (--microbatches) or iterations"),
              std::string::npos);
    SimulationSpec huge = unit(Schedule::kGPipe, 2, 1000000, {1, 1});
    huge.iterations = 1000;
    EXPECT_NE(message([&] { simulate(huge); }).find("more than the 2000000"), std::string::npos);
    huge.microbatches = 2000000000;  // beyond its bound: refused, not an overflowing size
    EXPECT_NE(message([&] { simulate(huge); }).find("--microbatches must be from 1 to"),
              std::string::npos);
}

}  // namespace
}  // namespace glueprof::pipeline
