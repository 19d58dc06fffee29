#pragma once
// Packed-sequence metadata for one micro-batch: lengths -> cu_seqlens, max_seqlen and the dense
// additive block-diagonal causal attention mask. Three ways to get it, one per toggle arm:
//   kRebuild    (baseline)          every attention layer, in forward and in the recompute,
//                                   rebuilds it from the device lengths tensor with three host
//                                   reads and a per-document loop, as the unoptimized Unsloth path.
//   kCached     (packed_cache)      built once per micro-batch per device, keyed by the identity
//                                   and version of the lengths tensor, reused by all layers.
//   kVectorized (packed_vectorized) the mask from segment ids in a constant number of ops, the
//                                   prefix sums from the data loader: zero host reads; cached
//                                   like kCached, so it is also built once per micro-batch.
// All three produce bit-identical masks.
#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "optimizations/packed_metadata/PackedMetadataMode.h"

namespace glueprof {

class HostTracer;

// What the data loader knows about a packed micro-batch.
struct PackedSequenceInfo {
    at::Tensor lengths;     // [D] int64 on the compute device: document lengths in order
    at::Tensor segmentIds;  // [T] int64 on the compute device: document index of each token
    std::vector<std::int64_t>
        hostCuSeqlens;               // [D+1] prefix sums, computed on the host by the loader
    std::int64_t hostMaxSeqlen = 0;  // computed on the host by the loader
};

struct PackedMetadata {
    at::Tensor cuSeqlens;  // [D+1] int32 on the device
    std::int64_t maxSeqlen = 0;
    at::Tensor mask;  // [T, T] additive: 0 where a token may attend, -inf elsewhere
};

// The baseline build: host reads of max, sum and the lengths, then one block per document.
PackedMetadata buildPackedMetadataPerDocument(const at::Tensor& lengths, at::ScalarType dtype);
// The vectorized build: no host reads, a constant number of ops whatever the document count.
PackedMetadata buildPackedMetadataVectorized(const PackedSequenceInfo& info, at::ScalarType dtype);

// A single-entry cache per device. It holds a reference to the lengths tensor it was built from,
// so that tensor's storage cannot be freed and its address reused by another micro-batch, and it
// compares the version counter, so an in-place edit of the lengths invalidates the entry.
class PackedMetadataCache {
  public:
    // The cached metadata when `lengths` is the same tensor, at the same version, with the same
    // dtype as the entry for its device; nullptr otherwise.
    const PackedMetadata* lookup(const at::Tensor& lengths, at::ScalarType dtype);
    // Replaces the entry for the device of `lengths`.
    const PackedMetadata& store(const at::Tensor& lengths, at::ScalarType dtype,
                                PackedMetadata metadata);
    void clear();
    std::int64_t hits() const { return m_hits; }
    std::int64_t misses() const { return m_misses; }

  private:
    struct Entry {
        at::Tensor lengths;
        std::int64_t version = 0;
        at::ScalarType dtype = at::kFloat;
        PackedMetadata metadata;
    };
    std::vector<Entry> m_entries;  // at most one per device
    std::int64_t m_hits = 0;
    std::int64_t m_misses = 0;
};

// What an attention layer calls: picks the build for the mode, counts mask builds and records a
// `build_packed_mask` glue range around each build.
class PackedMetadataProvider {
  public:
    PackedMetadataProvider(PackedMetadataMode mode, HostTracer* tracer);

    PackedMetadata get(const PackedSequenceInfo& info, at::ScalarType dtype, bool recompute);
    PackedMetadataMode mode() const { return m_mode; }
    PackedMetadataCache& cache() { return m_cache; }

  private:
    PackedMetadata build(const PackedSequenceInfo& info, at::ScalarType dtype, bool recompute);

    PackedMetadataMode m_mode;
    HostTracer* m_tracer;
    PackedMetadataCache m_cache;
};

}  // namespace glueprof
