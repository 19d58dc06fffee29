#include "reference_trainer/data/PackedBatches.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace glueprof {

PackedBatch PackedBatch::toDevice(const torch::Device& device) const {
    auto copy = [&](const torch::Tensor& t) { return t.to(device, /*non_blocking=*/false, /*copy=*/true); };
    PackedBatch out;
    out.tokens = copy(tokens);
    out.labels = copy(labels);
    out.positions = copy(positions);
    out.packing.lengths = copy(packing.lengths);
    out.packing.segmentIds = copy(packing.segmentIds);
    out.packing.hostCuSeqlens = packing.hostCuSeqlens;
    out.packing.hostMaxSeqlen = packing.hostMaxSeqlen;
    return out;
}

PackedBatches::PackedBatches(const TrainConfig& config)
    : m_seqLen(config.seqLen),
      m_vocab(config.model.vocab),
      m_lengths(config.docLengths),
      m_seed(config.seed) {}

std::vector<std::int64_t> PackedBatches::documentLengths(std::int64_t index) const {
    std::mt19937_64 rng(m_seed * 1000003u + static_cast<std::uint64_t>(index));
    std::lognormal_distribution<double> logNormal(std::log(m_lengths.a), m_lengths.b);
    std::uniform_real_distribution<double> uniform(m_lengths.a, m_lengths.b);
    std::vector<std::int64_t> lengths;
    std::int64_t used = 0;
    while (used < m_seqLen) {
        double drawn = m_lengths.a;
        if (m_lengths.kind == DocLengthDistribution::Kind::kLogNormal) drawn = logNormal(rng);
        if (m_lengths.kind == DocLengthDistribution::Kind::kUniform) drawn = uniform(rng);
        auto length = std::max<std::int64_t>(2, static_cast<std::int64_t>(std::llround(drawn)));
        length = std::min(length, m_seqLen - used);  // the last document is cut to fit the row
        lengths.push_back(length);
        used += length;
    }
    return lengths;
}

PackedBatch PackedBatches::batch(std::int64_t index) const {
    std::vector<std::int64_t> lengths = documentLengths(index);
    std::mt19937_64 rng(m_seed * 7919u + static_cast<std::uint64_t>(index));
    std::uniform_int_distribution<std::int64_t> firstToken(1, m_vocab - 1);

    std::vector<std::int64_t> tokens, labels, positions, segments, cuSeqlens{0};
    tokens.reserve(m_seqLen);
    for (std::size_t d = 0; d < lengths.size(); ++d) {
        // A learnable task: within a document each token follows from the previous one.
        std::int64_t token = firstToken(rng);
        for (std::int64_t p = 0; p < lengths[d]; ++p) {
            tokens.push_back(token);
            positions.push_back(p);
            segments.push_back(static_cast<std::int64_t>(d));
            labels.push_back(p + 1 < lengths[d] ? (token * 3 + 1) % m_vocab : kIgnoreLabel);
            token = (token * 3 + 1) % m_vocab;
        }
        cuSeqlens.push_back(cuSeqlens.back() + lengths[d]);
    }
    auto longs = [](const std::vector<std::int64_t>& v) { return torch::tensor(v, torch::kLong); };
    PackedBatch b;
    b.tokens = longs(tokens).unsqueeze(0);
    b.labels = longs(labels).unsqueeze(0);
    b.positions = longs(positions).unsqueeze(0);
    b.packing.lengths = longs(lengths);
    b.packing.segmentIds = longs(segments);
    b.packing.hostCuSeqlens = cuSeqlens;
    b.packing.hostMaxSeqlen = *std::max_element(lengths.begin(), lengths.end());
    return b;
}

}  // namespace glueprof
