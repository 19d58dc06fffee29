// LoRA, NF4, the MoE layer and the published presets, each checked on its own.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "profiler/core/Error.h"
#include "profiler/core/TextEncoding.h"
#include "reference_trainer/AbRunner.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/Trainer.h"
#include "reference_trainer/data/PackedBatches.h"
#include "reference_trainer/data/TextCorpus.h"
#include "reference_trainer/model/Moe.h"
#include "reference_trainer/model/Nf4.h"
#include "reference_trainer/model/Projection.h"

namespace glueprof {
namespace {

TEST(LoraTest, OnlyAdaptersReceiveGradientsAndTheBaseStaysFrozen) {
    TrainConfig config = presetConfig("tiny");
    config.lora = LoraConfig{4, 8.0, false};
    Trainer trainer(config, nullptr);
    std::map<std::string, torch::Tensor> before;
    for (const auto& p : trainer.model()->named_parameters()) before[p.key()] = p.value().clone();
    trainer.step(0);
    trainer.step(1);
    int adapters = 0;
    for (const auto& p : trainer.model()->named_parameters()) {
        const bool adapter = p.key().find("lora_") != std::string::npos;
        EXPECT_EQ(p.value().requires_grad(), adapter) << p.key();
        if (adapter) {
            ++adapters;
            EXPECT_TRUE(p.value().grad().defined()) << p.key();
        } else {
            EXPECT_FALSE(p.value().grad().defined()) << p.key();
            EXPECT_TRUE(torch::equal(p.value(), before[p.key()])) << p.key() << " changed";
        }
    }
    // 4 layers x (q, k, v, o, gate, up, down) x (A, B)
    EXPECT_EQ(adapters, 4 * 7 * 2);
    EXPECT_EQ(static_cast<std::int64_t>(trainer.trainableParameters().size()), adapters);
    // lora_B starts at zero and moves: the adapters do learn.
    for (const auto& p : trainer.model()->named_parameters()) {
        if (p.key().find("lora_B") != std::string::npos) {
            EXPECT_GT(p.value().abs().sum().item<double>(), 0.0) << p.key();
        }
    }
}

TEST(Nf4Test, RoundTripErrorStaysWithinHalfTheWidestCodeGapTimesAbsmax) {
    torch::manual_seed(3);
    torch::Tensor w = torch::randn({70, 33}) * 0.02;  // 2310 values: the last block is partial
    Nf4Tensor q = quantizeNf4(w);
    EXPECT_EQ(q.absmax.numel(), (2310 + 63) / 64);
    EXPECT_EQ(q.packedCodes.numel(), 64 * q.absmax.numel() / 2);
    torch::Tensor back = dequantizeNf4(q, torch::kFloat);
    ASSERT_EQ(back.sizes(), w.sizes());
    torch::Tensor blockMax =
        torch::constant_pad_nd(w.reshape({-1}).abs(), {0, q.absmax.numel() * 64 - 2310}, 0)
            .view({-1, 64})
            .amax(1);
    EXPECT_TRUE(torch::allclose(q.absmax, blockMax));
    // Per element: |w - w'| <= (widest gap / 2) * absmax of its block.
    torch::Tensor bound =
        blockMax.repeat_interleave(64).narrow(0, 0, 2310).view_as(w) * nf4MaxRelativeError();
    EXPECT_TRUE(((w - back).abs() <= bound + 1e-7).all().item<bool>());
    EXPECT_NEAR(nf4MaxRelativeError(), (1.0 - 0.6961928009986877) / 2, 1e-7);
    // The block maxima themselves are exact (code +-1).
    EXPECT_TRUE(torch::allclose(back.reshape({-1}).abs().max(), w.abs().max()));
}

TEST(Nf4Test, QloraForwardStaysCloseToTheUnquantizedModel) {
    torch::manual_seed(5);
    Projection full(64, 48, false, LoraConfig{4, 8.0, false});
    torch::manual_seed(5);
    Projection quantized(64, 48, false, LoraConfig{4, 8.0, true});
    EXPECT_TRUE(quantized->quantized());
    torch::Tensor x = torch::randn({10, 64});
    torch::Tensor exact = full->forward(x);
    torch::Tensor approx = quantized->forward(x);
    const double relative = ((exact - approx).norm() / exact.norm()).item<double>();
    EXPECT_LT(relative, 0.15);  // 4-bit weights: close, not equal
    EXPECT_GT(relative, 0.0);
}

TEST(MoeTest, RouterTopKSoftmaxClampedExpertsAndCombineOnAHandCheckedCase) {
    ModelConfig c;
    c.hidden = 2;
    c.intermediate = 1;
    c.experts = 3;
    c.topK = 2;
    c.swigluLimit = 7.0;
    Moe moe(c, false);
    torch::NoGradGuard noGrad;
    // Every token picks experts 0 and 1 (router logits 2, 1, 0), weights softmax(2, 1).
    moe->router()->weight.zero_();
    moe->router()->bias.copy_(torch::tensor({2.0F, 1.0F, 0.0F}));
    moe->gateUp().zero_();
    moe->gateUpBias().zero_();
    moe->down().zero_();
    moe->downBias().zero_();
    // Expert 0: gate = up = x0; down writes to output 0.
    moe->gateUp()[0][0][0] = 1.0F;
    moe->gateUp()[0][0][1] = 1.0F;
    moe->down()[0][0][0] = 1.0F;
    // Expert 1: gate = 10 x0 (clamped to 7 above), up = -10 x0 (clamped to -7); down to output 1.
    moe->gateUp()[1][0][0] = 10.0F;
    moe->gateUp()[1][0][1] = -10.0F;
    moe->down()[1][0][1] = 1.0F;
    moe->downBias()[1][1] = 0.5F;

    ForwardContext context;
    for (MoeRoutingMode mode :
         {MoeRoutingMode::kPerExpert, MoeRoutingMode::kGroupOnce, MoeRoutingMode::kSyncFree}) {
        context.moeRouting = mode;
        torch::Tensor x = torch::tensor({1.0F, 0.0F, 0.5F, 0.0F}).view({1, 2, 2});
        torch::Tensor out = moe->forward(x, context);
        auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
        const double w0 = std::exp(2.0) / (std::exp(2.0) + std::exp(1.0));
        const double w1 = 1.0 - w0;
        for (int token = 0; token < 2; ++token) {
            const double x0 = token == 0 ? 1.0 : 0.5;
            const double e0 = (x0 + 1) * (x0 * sigmoid(1.702 * x0));  // expert 0, output 0
            const double gate1 = std::min(10 * x0, 7.0);
            const double up1 = std::max(-10 * x0, -7.0);
            const double e1 =
                (up1 + 1) * (gate1 * sigmoid(1.702 * gate1)) + 0.5;  // expert 1, output 1
            EXPECT_NEAR(out[0][token][0].item<double>(), w0 * e0, 1e-5)
                << toString(mode) << " token " << token;
            EXPECT_NEAR(out[0][token][1].item<double>(), w1 * e1, 1e-5)
                << toString(mode) << " token " << token;
        }
    }
}

TEST(PresetTest, PublishedShapesMatchTheCitedConfigFiles) {
    int checked = 0;
    for (const Preset& preset : presets()) {
        if (preset.source.empty()) continue;
        std::ifstream file(std::string(GLUEPROF_SOURCE_DIR) + "/assets/presets/" + preset.name +
                           ".json");
        ASSERT_TRUE(file) << preset.name;
        nlohmann::json j = nlohmann::json::parse(file);
        const ModelConfig& m = preset.config.model;
        EXPECT_EQ(j["source"], preset.source);
        EXPECT_EQ(j["num_hidden_layers"], m.layers) << preset.name;
        EXPECT_EQ(j["hidden_size"], m.hidden) << preset.name;
        EXPECT_EQ(j["num_attention_heads"], m.heads) << preset.name;
        EXPECT_EQ(j["num_key_value_heads"], m.kvHeads) << preset.name;
        EXPECT_EQ(j["head_dim"], m.headDim) << preset.name;
        EXPECT_EQ(j["intermediate_size"], m.intermediate) << preset.name;
        EXPECT_EQ(j["vocab_size"], m.vocab) << preset.name;
        EXPECT_EQ(j["rope_theta"], m.ropeTheta) << preset.name;
        EXPECT_EQ(j["rms_norm_eps"], m.rmsEps) << preset.name;
        EXPECT_EQ(j["tie_word_embeddings"], m.tieEmbeddings) << preset.name;
        EXPECT_EQ(j["num_local_experts"], m.experts) << preset.name;
        EXPECT_EQ(j["num_experts_per_tok"], m.topK) << preset.name;
        ++checked;
    }
    EXPECT_EQ(checked, 4);
}

TEST(PresetTest, ScaleShrinksWidthAndDepthAndKeepsHeadsGrouped) {
    TrainConfig c = presetConfig("qwen3-14b", 0.1);
    EXPECT_EQ(c.model.layers, 4);
    EXPECT_EQ(c.model.hidden, 512);
    EXPECT_EQ(c.model.kvHeads, 1);
    EXPECT_EQ(c.model.heads, 5);  // 40 / 8 query heads per KV head
    EXPECT_EQ(c.model.headDim, 128);
    EXPECT_EQ(c.model.vocab, 151936);
    EXPECT_TRUE(c.lora.nf4);
    EXPECT_EQ(presetConfig("gpt-oss-20b", 0.05).model.experts, 32);
    EXPECT_THROW(presetConfig("tiny", 1.5), GlueprofError);
    // Full fine-tuning keeps 16 bytes per parameter (weight, gradient, two AdamW moments); QLoRA
    // keeps 4.5 bits per frozen projection weight. The difference is that, exactly.
    TrainConfig full = c;
    full.lora = LoraConfig{};
    const ParameterCounts counts = countParameters(full.model, c.lora);
    const double expected = 12.0 * static_cast<double>(counts.total - counts.projections) +
                            (16.0 - 0.5 - 4.0 / 64) * static_cast<double>(counts.projections) -
                            16.0 * static_cast<double>(counts.adapters);
    EXPECT_NEAR(static_cast<double>(estimateTrainerBytes(full) - estimateTrainerBytes(c)), expected,
                2.0);
}

TEST(DataTest, CorpusBatchesAreBytesPackedIntoDocumentsAndDeterministic) {
    const std::string file = ::testing::TempDir() + "glueprof-corpus.txt";
    {
        std::ofstream out(file);
        out << "first document\nstill first\n\n\nsecond\n";
    }
    TrainConfig config = presetConfig("tiny");
    config.seqLen = 16;
    config.dataFile = file;
    PackedBatches data(config);
    PackedBatch a = data.batch(0);
    // "first document\nstill first\n" is 27 bytes: batch 0 is its first 16, one document.
    EXPECT_EQ(a.packing.lengths.numel(), 1);
    EXPECT_EQ(a.tokens[0][0].item<std::int64_t>(), 'f');
    EXPECT_EQ(a.labels[0][0].item<std::int64_t>(), 'i');
    // Batch 1: 11 bytes of the first document, then "second\n" (7) cut to the 5 left.
    EXPECT_EQ(data.documentLengths(1), (std::vector<std::int64_t>{11, 5}));
    EXPECT_EQ(data.batch(1).positions[0][11].item<std::int64_t>(), 0);
    EXPECT_EQ(data.batch(1).labels[0][10].item<std::int64_t>(), kIgnoreLabel);
    EXPECT_TRUE(torch::equal(data.batch(3).tokens, PackedBatches(config).batch(3).tokens));
}

TEST(DataTest, InvalidUtf8IsLocated) {
    EXPECT_EQ(firstInvalidUtf8("plain ascii"), -1);
    EXPECT_EQ(firstInvalidUtf8("caf\xc3\xa9"), -1);
    EXPECT_EQ(firstInvalidUtf8("ab\xff"), 2);
    EXPECT_EQ(firstInvalidUtf8("ab\xc3"), 2);        // truncated
    EXPECT_EQ(firstInvalidUtf8("\xed\xa0\x80"), 0);  // a UTF-16 surrogate
}

TEST(AbBudgetTest, StepsPerBlockFitTheBudgetLeftWithinOneAndTheRequestedSteps) {
    // 2 arms x 3 blocks x 2 s a step: 60 s left fit 5 steps a block, capped at the 4 asked for.
    EXPECT_EQ(stepsWithinBudget(60.0, 2.0, 3, 4), 4);
    EXPECT_EQ(stepsWithinBudget(30.0, 1.0, 3, 10), 5);
    EXPECT_EQ(stepsWithinBudget(5.0, 2.0, 3, 4), 1);   // less than one: still one step a block
    EXPECT_EQ(stepsWithinBudget(-3.0, 2.0, 3, 4), 1);  // the warm-up overran the budget
    EXPECT_EQ(stepsWithinBudget(60.0, 0.0, 3, 4), 4);  // no step time measured: as asked
}

}  // namespace
}  // namespace glueprof
