#include <gtest/gtest.h>
#include <torch/torch.h>

#include <unistd.h>
#include <cmath>

#include <filesystem>

#include "optimizations/packed_metadata/PackedMetadata.h"
#include "profiler/core/TraceWriter.h"
#include "profiler/host/HostTracer.h"
#include "reference_trainer/Presets.h"
#include "reference_trainer/Trainer.h"
#include "reference_trainer/data/PackedBatches.h"

namespace glueprof {
namespace {

TrainConfig tinyWith(PackedMetadataMode mode) {
    TrainConfig config = presetConfig("tiny");
    config.optimizations.packedMetadata = mode;
    return config;
}

TEST(PackedMetadataTest, PerDocumentAndVectorizedBuildsAreBitIdentical) {
    PackedBatch batch = PackedBatches(presetConfig("tiny")).batch(3);
    PackedMetadata perDocument =
        buildPackedMetadataPerDocument(batch.packing.lengths, torch::kFloat);
    PackedMetadata vectorized = buildPackedMetadataVectorized(batch.packing, torch::kFloat);
    EXPECT_TRUE(torch::equal(perDocument.mask, vectorized.mask));
    EXPECT_TRUE(torch::equal(perDocument.cuSeqlens, vectorized.cuSeqlens));
    EXPECT_EQ(perDocument.maxSeqlen, vectorized.maxSeqlen);
    EXPECT_GT(batch.packing.lengths.size(0), 1) << "the batch should pack several documents";
}

TEST(PackedMetadataTest, MaskLetsATokenSeeOnlyEarlierTokensOfItsOwnDocument) {
    PackedBatch batch = PackedBatches(presetConfig("tiny")).batch(0);
    torch::Tensor mask = buildPackedMetadataPerDocument(batch.packing.lengths, torch::kFloat).mask;
    torch::Tensor segments = batch.packing.segmentIds;
    const std::int64_t t = segments.size(0);
    auto seg = segments.accessor<std::int64_t, 1>();
    auto m = mask.accessor<float, 2>();
    for (std::int64_t i = 0; i < t; ++i) {
        for (std::int64_t j = 0; j < t; ++j) {
            bool allowed = seg[i] == seg[j] && j <= i;
            ASSERT_EQ(m[i][j] == 0.0f, allowed) << i << "," << j;
            if (!allowed) {
                ASSERT_TRUE(std::isinf(m[i][j]) && m[i][j] < 0);
            }
        }
    }
}

TEST(PackedMetadataTest, CacheHitsTheSameTensorAndMissesAfterInPlaceEditCloneOrClear) {
    PackedBatch batch = PackedBatches(presetConfig("tiny")).batch(1);
    PackedMetadataCache cache;
    torch::Tensor lengths = batch.packing.lengths;
    EXPECT_EQ(cache.lookup(lengths, torch::kFloat), nullptr);
    cache.store(lengths, torch::kFloat, buildPackedMetadataPerDocument(lengths, torch::kFloat));
    EXPECT_NE(cache.lookup(lengths, torch::kFloat), nullptr);
    EXPECT_EQ(cache.lookup(lengths, torch::kDouble), nullptr);         // another dtype
    EXPECT_EQ(cache.lookup(lengths.clone(), torch::kFloat), nullptr);  // same values, other tensor
    lengths.add_(0);  // an in-place edit bumps the version counter
    EXPECT_EQ(cache.lookup(lengths, torch::kFloat), nullptr);
    cache.store(lengths, torch::kFloat, buildPackedMetadataPerDocument(lengths, torch::kFloat));
    EXPECT_NE(cache.lookup(lengths, torch::kFloat), nullptr);
    cache.clear();
    EXPECT_EQ(cache.lookup(lengths, torch::kFloat), nullptr);
    EXPECT_EQ(cache.hits(), 2);
}

TEST(PackedMetadataTest, ProviderBuildsOncePerMicroBatchWhenCachedAndEveryCallOtherwise) {
    auto db = std::filesystem::temp_directory_path() /
              ("glueprof-provider-" + std::to_string(::getpid()) + ".sqlite");
    std::filesystem::remove(db);
    TraceWriter writer(db.string());
    HostTracer tracer(writer);
    PackedBatch batch = PackedBatches(presetConfig("tiny")).batch(2);
    for (PackedMetadataMode mode : {PackedMetadataMode::kRebuild, PackedMetadataMode::kCached,
                                    PackedMetadataMode::kVectorized}) {
        tracer.counters().reset();
        PackedMetadataProvider provider(mode, &tracer);
        for (int layer = 0; layer < 4; ++layer) provider.get(batch.packing, torch::kFloat, false);
        for (int layer = 0; layer < 4; ++layer) provider.get(batch.packing, torch::kFloat, true);
        bool rebuild = mode == PackedMetadataMode::kRebuild;
        EXPECT_EQ(tracer.counters().value(Counter::kMaskBuilds), rebuild ? 8 : 1) << toString(mode);
        EXPECT_EQ(tracer.counters().value(Counter::kMaskBuildsForward), rebuild ? 4 : 1);
    }
    writer.close();
    std::filesystem::remove(db);
}

// Logits, loss and every gradient of one forward/backward, for a trainer in `mode`.
struct Pass {
    torch::Tensor logits;
    torch::Tensor loss;
    std::vector<torch::Tensor> grads;
};

Pass onePass(PackedMetadataMode mode) {
    Trainer trainer(tinyWith(mode), nullptr);
    PackedBatch batch = trainer.data().batch(5).toDevice(trainer.device());
    ForwardContext context = trainer.makeContext(batch);
    Pass pass;
    pass.loss = trainer.forwardLoss(batch, context, &pass.logits);
    pass.loss.backward();
    for (const auto& p : trainer.model()->parameters()) pass.grads.push_back(p.grad().clone());
    return pass;
}

TEST(PackedMetadataTest, LogitsLossAndGradientsAreBitIdenticalAcrossTheThreeModes) {
    Pass rebuild = onePass(PackedMetadataMode::kRebuild);
    for (PackedMetadataMode mode : {PackedMetadataMode::kCached, PackedMetadataMode::kVectorized}) {
        Pass other = onePass(mode);
        EXPECT_TRUE(torch::equal(rebuild.logits, other.logits)) << toString(mode);
        EXPECT_TRUE(torch::equal(rebuild.loss, other.loss)) << toString(mode);
        ASSERT_EQ(rebuild.grads.size(), other.grads.size());
        for (std::size_t i = 0; i < rebuild.grads.size(); ++i) {
            EXPECT_TRUE(torch::equal(rebuild.grads[i], other.grads[i]))
                << toString(mode) << " grad " << i;
        }
    }
}

}  // namespace
}  // namespace glueprof
