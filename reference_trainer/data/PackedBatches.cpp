#include "reference_trainer/data/PackedBatches.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "profiler/core/Error.h"
#include "reference_trainer/data/TextCorpus.h"

namespace glueprof {

PackedBatch PackedBatch::toDevice(const torch::Device& device) const {
    auto copy = [&](const torch::Tensor& t) {
        return t.to(device, /*non_blocking=*/false, /*copy=*/true);
    };
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
      m_seed(config.seed) {
    if (config.dataFile.empty()) return;
    if (m_vocab < 256) {
        throw inputError(
            fmt::format("--data needs a vocabulary of at least 256 byte tokens; preset "
                        "'{}' has {}: choose another preset",
                        config.preset, m_vocab));
    }
    TextCorpus corpus = TextCorpus::load(config.dataFile);
    m_corpusTokens.reserve(static_cast<std::size_t>(corpus.bytes()));
    for (const std::string& document : corpus.documents()) {
        for (char c : document) {
            m_corpusTokens.push_back(static_cast<std::uint8_t>(c));
            m_corpusDocument.push_back(m_corpusDocuments);
        }
        ++m_corpusDocuments;
    }
}

std::vector<std::int64_t> PackedBatches::documentLengths(std::int64_t index) const {
    return fromCorpus() ? corpusWindow(index).lengths : synthetic(index).lengths;
}

PackedBatches::Documents PackedBatches::corpusWindow(std::int64_t index) const {
    const auto n = static_cast<std::int64_t>(m_corpusTokens.size());
    Documents docs;
    std::int64_t previous = -1;
    for (std::int64_t i = 0; i < m_seqLen; ++i) {
        const std::int64_t position = index * m_seqLen + i;
        const auto at = static_cast<std::size_t>(position % n);
        // Each pass over the corpus counts as new documents, so a one-document corpus that wraps
        // inside a window still splits there.
        const std::int64_t document = (position / n) * m_corpusDocuments + m_corpusDocument[at];
        if (document != previous) docs.lengths.push_back(0);
        ++docs.lengths.back();
        docs.tokens.push_back(m_corpusTokens[at]);
        previous = document;
    }
    return docs;
}

PackedBatches::Documents PackedBatches::synthetic(std::int64_t index) const {
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
    std::mt19937_64 tokenRng(m_seed * 7919u + static_cast<std::uint64_t>(index));
    std::uniform_int_distribution<std::int64_t> firstToken(1, m_vocab - 1);
    Documents docs;
    docs.tokens.reserve(static_cast<std::size_t>(m_seqLen));
    for (std::int64_t length : lengths) {
        // A learnable task: within a document each token follows from the previous one.
        std::int64_t token = firstToken(tokenRng);
        for (std::int64_t p = 0; p < length; ++p) {
            docs.tokens.push_back(token);
            token = (token * 3 + 1) % m_vocab;
        }
    }
    docs.lengths = std::move(lengths);
    return docs;
}

PackedBatch PackedBatches::batch(std::int64_t index) const {
    const Documents docs = fromCorpus() ? corpusWindow(index) : synthetic(index);
    const std::vector<std::int64_t>& lengths = docs.lengths;
    std::vector<std::int64_t> labels, positions, segments, cuSeqlens{0};
    std::size_t at = 0;
    for (std::size_t d = 0; d < lengths.size(); ++d) {
        for (std::int64_t p = 0; p < lengths[d]; ++p, ++at) {
            positions.push_back(p);
            segments.push_back(static_cast<std::int64_t>(d));
            labels.push_back(p + 1 < lengths[d] ? docs.tokens[at + 1] : kIgnoreLabel);
        }
        cuSeqlens.push_back(cuSeqlens.back() + lengths[d]);
    }
    auto longs = [](const std::vector<std::int64_t>& v) { return torch::tensor(v, torch::kLong); };
    PackedBatch b;
    b.tokens = longs(docs.tokens).unsqueeze(0);
    b.labels = longs(labels).unsqueeze(0);
    b.positions = longs(positions).unsqueeze(0);
    b.packing.lengths = longs(lengths);
    b.packing.segmentIds = longs(segments);
    b.packing.hostCuSeqlens = cuSeqlens;
    b.packing.hostMaxSeqlen = *std::max_element(lengths.begin(), lengths.end());
    return b;
}

}  // namespace glueprof
