#pragma once
// Synthetic packed SFT micro-batches. Each micro-batch is one row of seqLen tokens holding several
// documents back to back; positions restart at 0 per document; the label that would predict the
// next document's first token is ignored (-100). Batch i is a pure function of (seed, i), so both
// arms of an A/B see the same batches.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "optimizations/packed_metadata/PackedMetadata.h"
#include "reference_trainer/TrainConfig.h"

namespace glueprof {

constexpr std::int64_t kIgnoreLabel = -100;

struct PackedBatch {
    torch::Tensor tokens;     // [1, T] int64
    torch::Tensor labels;     // [1, T] int64, kIgnoreLabel at document ends
    torch::Tensor positions;  // [1, T] int64, 0.. within each document
    PackedSequenceInfo packing;

    // A copy on `device`, as a data loader hands a fresh batch to every step.
    PackedBatch toDevice(const torch::Device& device) const;
};

class PackedBatches {
public:
    explicit PackedBatches(const TrainConfig& config);
    // The host-side batch number `index` (deterministic).
    PackedBatch batch(std::int64_t index) const;
    // Document lengths drawn for batch `index` (they sum to seqLen).
    std::vector<std::int64_t> documentLengths(std::int64_t index) const;

private:
    std::int64_t m_seqLen;
    std::int64_t m_vocab;
    DocLengthDistribution m_lengths;
    std::uint64_t m_seed;
};

}  // namespace glueprof
