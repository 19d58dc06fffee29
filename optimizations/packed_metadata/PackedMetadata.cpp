#include "optimizations/packed_metadata/PackedMetadata.h"

#include <limits>
#include <utility>

#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"
#include "profiler/torch_ops/HostRead.h"

namespace glueprof {

const char* toString(PackedMetadataMode mode) {
    switch (mode) {
        case PackedMetadataMode::kRebuild:
            return "rebuild";
        case PackedMetadataMode::kCached:
            return "cached";
        case PackedMetadataMode::kVectorized:
            return "vectorized";
    }
    return "unknown";
}

namespace {
constexpr double kMasked = -std::numeric_limits<double>::infinity();
}

PackedMetadata buildPackedMetadataPerDocument(const at::Tensor& lengths, at::ScalarType dtype) {
    PackedMetadata meta;
    // cu_seqlens = pad(cumsum(lengths), (1, 0)) on the device, as flash-attention wants it.
    at::Tensor cumulative = at::cumsum(lengths, 0, at::kInt);
    meta.cuSeqlens = at::cat({at::zeros({1}, cumulative.options()), cumulative});
    // Three host reads, as the unoptimized path does: max, total and the lengths as a list.
    meta.maxSeqlen = lengths.max().item<std::int64_t>();
    std::int64_t total = lengths.sum().item<std::int64_t>();
    at::Tensor hostLengths = copyToHost(lengths);
    const std::int64_t* length = hostLengths.data_ptr<std::int64_t>();

    meta.mask = at::full({total, total}, kMasked, lengths.options().dtype(dtype));
    std::int64_t start = 0;
    for (std::int64_t d = 0; d < hostLengths.numel(); ++d) {
        std::int64_t n = length[d];
        // A causal block: 0 on and below the diagonal, -inf above it.
        at::Tensor block = at::triu(at::full({n, n}, kMasked, meta.mask.options()), 1);
        meta.mask.slice(0, start, start + n).slice(1, start, start + n).copy_(block);
        start += n;
    }
    return meta;
}

PackedMetadata buildPackedMetadataVectorized(const PackedSequenceInfo& info, at::ScalarType dtype) {
    PackedMetadata meta;
    const at::Tensor& segments = info.segmentIds;
    std::int64_t total = segments.size(0);
    meta.cuSeqlens = at::tensor(info.hostCuSeqlens, at::kLong).to(segments.device(), at::kInt);
    meta.maxSeqlen = info.hostMaxSeqlen;
    at::Tensor sameDocument = segments.unsqueeze(1).eq(segments.unsqueeze(0));
    at::Tensor causal = at::ones({total, total}, segments.options().dtype(at::kBool)).tril();
    meta.mask = at::zeros({total, total}, segments.options().dtype(dtype))
                    .masked_fill(sameDocument.logical_and(causal).logical_not(), kMasked);
    return meta;
}

const PackedMetadata* PackedMetadataCache::lookup(const at::Tensor& lengths, at::ScalarType dtype) {
    for (const Entry& entry : m_entries) {
        if (entry.lengths.device() == lengths.device() &&
            entry.lengths.unsafeGetTensorImpl() == lengths.unsafeGetTensorImpl() &&
            entry.version == lengths._version() && entry.dtype == dtype) {
            ++m_hits;
            return &entry.metadata;
        }
    }
    ++m_misses;
    return nullptr;
}

const PackedMetadata& PackedMetadataCache::store(const at::Tensor& lengths, at::ScalarType dtype,
                                                 PackedMetadata metadata) {
    Entry fresh{lengths, lengths._version(), dtype, std::move(metadata)};
    for (Entry& entry : m_entries) {
        if (entry.lengths.device() == lengths.device()) {
            entry = std::move(fresh);
            return entry.metadata;
        }
    }
    m_entries.push_back(std::move(fresh));
    return m_entries.back().metadata;
}

void PackedMetadataCache::clear() { m_entries.clear(); }

PackedMetadataProvider::PackedMetadataProvider(PackedMetadataMode mode, HostTracer* tracer)
    : m_mode(mode), m_tracer(tracer) {}

PackedMetadata PackedMetadataProvider::build(const PackedSequenceInfo& info, at::ScalarType dtype,
                                             bool recompute) {
    ScopedRange range(m_tracer, names::kMaskBuild, Category::kGlue);
    if (m_tracer != nullptr) {
        m_tracer->counters().add(Counter::kMaskBuilds);
        if (!recompute) m_tracer->counters().add(Counter::kMaskBuildsForward);
    }
    return m_mode == PackedMetadataMode::kVectorized
               ? buildPackedMetadataVectorized(info, dtype)
               : buildPackedMetadataPerDocument(info.lengths, dtype);
}

PackedMetadata PackedMetadataProvider::get(const PackedSequenceInfo& info, at::ScalarType dtype,
                                           bool recompute) {
    if (m_mode == PackedMetadataMode::kRebuild) return build(info, dtype, recompute);
    if (const PackedMetadata* cached = m_cache.lookup(info.lengths, dtype)) return *cached;
    return m_cache.store(info.lengths, dtype, build(info, dtype, recompute));
}

}  // namespace glueprof
