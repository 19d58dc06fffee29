#pragma once
// Packed SFT micro-batches. Each micro-batch is one row of seqLen tokens holding several documents
// back to back; positions restart at 0 per document; the label that would predict the next
// document's first token is ignored (-100). Documents are synthetic (lengths from the configured
// distribution, a learnable token sequence in each) or, with --data, a real corpus as bytes:
// the corpus is one cyclic stream of documents and batch i is its i-th window of seqLen tokens.
// Batch i is a pure function of (config, i), so both arms of an A/B see the same batches.
#include <torch/torch.h>

#include <cstdint>
#include <memory>
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
    // Document lengths of batch `index` (they sum to seqLen).
    std::vector<std::int64_t> documentLengths(std::int64_t index) const;
    bool fromCorpus() const { return !m_corpusTokens.empty(); }

  private:
    struct Documents {
        std::vector<std::int64_t> lengths;
        std::vector<std::int64_t> tokens;  // seqLen tokens, documents back to back
    };
    Documents synthetic(std::int64_t index) const;
    Documents corpusWindow(std::int64_t index) const;

    std::int64_t m_seqLen;
    std::int64_t m_vocab;
    DocLengthDistribution m_lengths;
    std::uint64_t m_seed;
    std::vector<std::uint8_t> m_corpusTokens;    // the corpus as one byte stream
    std::vector<std::int64_t> m_corpusDocument;  // document index of each byte
    std::int64_t m_corpusDocuments = 0;
};

}  // namespace glueprof
