// The pipeline executor on CPU: two worker threads, both schedules, synchronous optimizer. It must
// train exactly as the single-worker trainer does: the same loss, bit for bit, at every step.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "profiler/core/Error.h"
#include "profiler/core/TraceReader.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/host/HostTracer.h"
#include "reference_trainer/PipelineExecutor.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/Trainer.h"

namespace glueprof {
namespace {

TrainConfig pipelined(PipelineMode mode, std::vector<int> loopedBfsPartition = {}) {
    TrainConfig config = presetConfig("tiny");
    config.microbatches = 4;
    config.optimizations.pipeline.mode = mode;
    config.optimizations.pipeline.workers = 2;
    config.optimizations.pipeline.loopedBfsPartition = std::move(loopedBfsPartition);
    return config;
}

TEST(PipelineExecutorTest, TwoWorkersTrainBitIdenticallyToOneForBothSchedules) {
    TrainConfig single = presetConfig("tiny");
    single.microbatches = 4;
    Trainer reference(single, nullptr);
    Trainer looped(pipelined(PipelineMode::kLoopedBfs), nullptr);
    Trainer uneven(pipelined(PipelineMode::kLoopedBfs, {3, 1, 0, 0}), nullptr);
    Trainer roundPipe(pipelined(PipelineMode::kRoundPipe), nullptr);
    for (int step = 0; step < 4; ++step) {
        const double expected = reference.step(step).loss;
        EXPECT_EQ(looped.step(step).loss, expected) << "looped-bfs, step " << step;
        EXPECT_EQ(uneven.step(step).loss, expected) << "looped-bfs 3,1,0,0, step " << step;
        EXPECT_EQ(roundPipe.step(step).loss, expected) << "roundpipe, step " << step;
    }
}

// RoundPipe's asynchronous optimizer: step k + 1 runs on the weights before update k. Deterministic
// (two trainers agree bit for bit); step 0 and step 1 both see the initial weights, so step 0
// matches the synchronous run and step 1 matches a synchronous run's step 1 only if update 0
// changed nothing.
TEST(PipelineExecutorTest, TheAsynchronousOptimizerIsOneStepStaleAndDeterministic) {
    TrainConfig async = pipelined(PipelineMode::kRoundPipe);
    async.optimizations.pipeline.asyncOptimizer = true;
    Trainer a(async, nullptr);
    Trainer b(async, nullptr);
    Trainer sync(pipelined(PipelineMode::kRoundPipe), nullptr);
    std::vector<double> asyncLoss, syncLoss;
    for (int step = 0; step < 4; ++step) {
        asyncLoss.push_back(a.step(step).loss);
        EXPECT_EQ(b.step(step).loss, asyncLoss.back()) << "step " << step;
        syncLoss.push_back(sync.step(step).loss);
    }
    EXPECT_NO_THROW(a.finish());  // the last update, still running under no step, ends cleanly
    EXPECT_NO_THROW(b.finish());
    EXPECT_EQ(asyncLoss[0], syncLoss[0]);
    EXPECT_NE(asyncLoss[1], syncLoss[1]);  // the stale weights show
    // A trainer of the initial weights on step 1's data gives async's step 1 loss: evaluate it by a
    // synchronous trainer with a learning rate of 0 (no update), stepping through step 0 first.
    TrainConfig frozen = pipelined(PipelineMode::kRoundPipe);
    frozen.learningRate = 0.0;
    Trainer still(frozen, nullptr);
    still.step(0);
    EXPECT_EQ(still.step(1).loss, asyncLoss[1]);
}

// RoundPipe's downloads carry the bytes of the gradients they move: per step, every micro-batch's
// gradient of every trainable parameter once (a tied embedding twice: its embedding and head
// stages). A backward job recomputes before it waits for its output's gradient: on the worker lane,
// every backward of a non-head stage follows recompute, then the wait for that gradient.
TEST(PipelineExecutorTest, RoundPipeMovesEachGradientOnceAndRecomputesBeforeWaitingForIt) {
    const auto db = std::filesystem::temp_directory_path() /
                    ("glueprof-pipeline-" + std::to_string(::getpid()) + ".sqlite");
    std::filesystem::remove(db);
    const TrainConfig config = pipelined(PipelineMode::kRoundPipe);
    std::int64_t gradientBytes = 0;
    std::int64_t stateBytes = 0;  // every parameter and buffer of the model
    RunId run = 0;
    {
        TraceWriter writer(db.string());
        HostTracer tracer(writer);
        RunInfo info;
        info.label = "roundpipe";
        info.preset = "tiny";
        info.device = "cpu";
        run = writer.beginRun(info);
        tracer.setRun(run);
        Trainer trainer(config, &tracer);
        for (const torch::Tensor& p : trainer.trainableParameters())
            gradientBytes += static_cast<std::int64_t>(p.nbytes());
        if (config.model.tieEmbeddings)
            gradientBytes +=
                static_cast<std::int64_t>(trainer.model()->embedParameters().front().nbytes());
        for (const torch::Tensor& t : trainer.model()->parameters())
            stateBytes += static_cast<std::int64_t>(t.nbytes());
        for (const torch::Tensor& t : trainer.model()->buffers())
            stateBytes += static_cast<std::int64_t>(t.nbytes());
        for (int step = 0; step < 2; ++step) trainer.step(step);
        writer.close();
    }
    const TraceModel model = TraceReader(db.string()).loadRun(run);
    std::map<std::int32_t, std::int64_t> downloaded;
    std::map<std::int32_t, std::int64_t> uploaded;
    int workerLanes = 0;
    int gradientWaits = 0;
    for (std::size_t l = 0; l < model.lanes().size(); ++l) {
        if (model.lanes()[l].kind != LaneKind::kPipelineWorker) continue;
        ++workerLanes;
        const std::vector<Event>& events = model.eventsOnLane(l);
        for (std::size_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            const std::string& name = model.name(e.name);
            if (name == "download") downloaded[e.step] += e.bytes;
            if (name == "upload") uploaded[e.step] += e.bytes;
            if (name != "backward" || e.layer == 0)
                continue;  // backward stage 0 is the head: no gradient to wait for
            ASSERT_GE(i, 2u);
            const Event& wait = events[i - 1];
            const Event& recompute = events[i - 2];
            EXPECT_EQ(model.name(wait.name), "wait")
                << "step " << e.step << " stage " << e.layer << " mb " << e.microbatch;
            EXPECT_EQ(model.name(recompute.name), "recompute");
            EXPECT_EQ(
                std::make_tuple(wait.layer, wait.microbatch, recompute.layer, recompute.microbatch),
                std::make_tuple(e.layer, e.microbatch, e.layer, e.microbatch));
            EXPECT_GE(wait.startNs, recompute.endNs);
            ++gradientWaits;
        }
    }
    EXPECT_EQ(workerLanes, 2);
    const pipeline::SimulationSpec plan = pipelineSpec(withPipelineMicrobatches(config));
    EXPECT_EQ(gradientWaits,
              2 * config.microbatches * static_cast<int>(plan.backwardPartition.size() - 1));
    ASSERT_EQ(downloaded.size(), 2u);
    for (const auto& [step, bytes] : downloaded)
        EXPECT_EQ(bytes, config.microbatches * gradientBytes) << "step " << step;
    // Each stage is uploaded at least once per step (by the worker that first runs it) and at most
    // once per job: the whole model at least, never more than M times the model with both passes.
    for (const auto& [step, bytes] : uploaded) {
        EXPECT_GE(bytes, stateBytes) << "step " << step;
        EXPECT_LE(bytes, 2 * config.microbatches * stateBytes) << "step " << step;
    }
    std::filesystem::remove(db);
}

TEST(PipelineExecutorTest, PlansFollowTheSchedules) {
    const pipeline::SimulationSpec looped = pipelineSpec(pipelined(PipelineMode::kLoopedBfs));
    EXPECT_EQ(looped.schedule, pipeline::Schedule::kLoopedBfs);
    EXPECT_EQ(looped.forwardPartition,
              (std::vector<int>{1, 1, 2, 0}));  // tiny: 4 layers, 2 workers
    const pipeline::SimulationSpec round = pipelineSpec(pipelined(PipelineMode::kRoundPipe));
    EXPECT_EQ(round.schedule, pipeline::Schedule::kRoundPipe);
    EXPECT_EQ(round.backwardPartition.front(), 0);  // the head stage
}

TEST(PipelineExecutorTest, AnImpossiblePartitionIsAnInputError) {
    try {
        Trainer bad(pipelined(PipelineMode::kLoopedBfs, {2, 1, 1}), nullptr);
        FAIL() << "a partition of 3 stages for 2 workers was accepted";
    } catch (const GlueprofError& e) {
        EXPECT_EQ(e.code(), ExitCode::kInput);
        EXPECT_NE(std::string(e.what()).find("multiple of 2 workers"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace glueprof
