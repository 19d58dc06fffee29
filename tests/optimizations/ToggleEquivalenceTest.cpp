// Every toggle against its baseline: the same loss, logits and gradients, bit for bit. The list of
// toggles comes from the registry, so a new toggle is covered the day it is registered.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "optimizations/ToggleRegistry.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/Trainer.h"

namespace glueprof {
namespace {

struct Outcome {
    std::vector<double> losses;
    std::vector<torch::Tensor> grads;  // after the last step, in parameter order
    torch::Tensor logits;
};

Outcome train(const TrainConfig& config, int steps) {
    Trainer trainer(config, nullptr);
    Outcome out;
    // Three steps: double buffering only starts at the second.
    for (int step = 0; step < steps; ++step) out.losses.push_back(trainer.step(step).loss);
    for (const torch::Tensor& p : trainer.model()->parameters()) {
        if (p.requires_grad()) out.grads.push_back(p.grad().clone());
    }
    PackedBatch batch = trainer.data().batch(steps).toDevice(trainer.device());
    ForwardContext context = trainer.makeContext(batch);
    torch::NoGradGuard noGrad;
    trainer.forwardLoss(batch, context, &out.logits);
    return out;
}

void expectBitIdentical(const Outcome& a, const Outcome& b, const std::string& what) {
    EXPECT_EQ(a.losses, b.losses) << what;
    ASSERT_EQ(a.grads.size(), b.grads.size()) << what;
    for (std::size_t i = 0; i < a.grads.size(); ++i) {
        EXPECT_TRUE(torch::equal(a.grads[i], b.grads[i])) << what << ": gradient " << i;
    }
    EXPECT_TRUE(torch::equal(a.logits, b.logits)) << what << ": logits";
}

TrainConfig configFor(const Toggle& toggle) {
    TrainConfig config = presetConfig(toggle.info->moeOnly ? "moe-tiny" : "tiny");
    config.offloadMinBytes = 0;
    return config;
}

TEST(ToggleEquivalenceTest, EveryToggleMatchesItsBaselineBitForBit) {
    for (const Toggle& toggle : toggleRegistry()) {
        TrainConfig base = configFor(toggle);
        TrainConfig baseline = base;
        baseline.optimizations = baselineSettings(toggle, base.optimizations);
        TrainConfig optimized = base;
        optimized.optimizations = optimizedSettings(toggle, base.optimizations);
        expectBitIdentical(train(baseline, 3), train(optimized, 3), toggle.name());
    }
}

TEST(ToggleEquivalenceTest, OffloadedTrainingMatchesTrainingWithoutOffload) {
    TrainConfig plain = presetConfig("tiny");
    plain.offloadMinBytes = 0;
    const Outcome reference = train(plain, 3);
    for (const char* name : {"offload", "double_buffer", "prefetch"}) {
        TrainConfig config = plain;
        config.optimizations = optimizedSettings(*findToggle(name), plain.optimizations);
        expectBitIdentical(reference, train(config, 3), name);
    }
}

TEST(ToggleEquivalenceTest, MoeRoutingModesMatchUnderLoraAndOffloadToo) {
    TrainConfig base = presetConfig("moe-tiny");
    base.lora = LoraConfig{4, 8.0, false};
    base.optimizations.offload.mode = OffloadMode::kDoubleBuffer;
    base.offloadMinBytes = 0;
    const Outcome reference = train(base, 2);
    for (MoeRoutingMode mode : {MoeRoutingMode::kGroupOnce, MoeRoutingMode::kSyncFree}) {
        TrainConfig config = base;
        config.optimizations.moeRouting = mode;
        expectBitIdentical(reference, train(config, 2), toString(mode));
    }
}

}  // namespace
}  // namespace glueprof
