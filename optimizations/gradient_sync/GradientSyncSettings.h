#pragma once
// How a data-parallel trainer averages gradients across ranks (the ddp_overlap toggle's setting;
// reference_trainer/distributed/GradientSync.h does it). Torch-free: the toggle registry includes
// it.
#include <cstdint>

namespace glueprof {

enum class GradientSyncMode {
    kPerParameter,  // after backward, one blocking all-reduce per parameter (a hand-written loop)
    kBucketedOverlap,  // buckets all-reduced asynchronously as their gradients are ready (DDP)
};

constexpr const char* toString(GradientSyncMode mode) {
    return mode == GradientSyncMode::kBucketedOverlap ? "bucketed-overlap" : "per-parameter";
}

struct GradientSyncSettings {
    GradientSyncMode mode = GradientSyncMode::kPerParameter;
    std::int64_t bucketBytes = std::int64_t{25} << 20;  // DDP's default bucket_cap_mb
};

}  // namespace glueprof
