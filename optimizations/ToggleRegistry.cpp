#include "optimizations/ToggleRegistry.h"

namespace glueprof {

const std::vector<Toggle>& toggleRegistry() {
    static const std::vector<Toggle> kToggles = {
        {"packed_cache",
         "build the packed-sequence mask and cu_seqlens once per micro-batch instead of in every "
         "layer and recompute",
         "forward_ms",
         [](OptimizationSettings& s) { s.packedMetadata = PackedMetadataMode::kCached; }},
        {"packed_vectorized",
         "build the packed mask from segment ids in a constant number of ops, with no host reads, "
         "once per micro-batch",
         "forward_ms",
         [](OptimizationSettings& s) { s.packedMetadata = PackedMetadataMode::kVectorized; }},
    };
    return kToggles;
}

const Toggle* findToggle(const std::string& name) {
    for (const Toggle& toggle : toggleRegistry()) {
        if (toggle.name == name) return &toggle;
    }
    return nullptr;
}

std::string toggleNames() {
    std::string names;
    for (const Toggle& toggle : toggleRegistry()) {
        if (!names.empty()) names += ", ";
        names += toggle.name;
    }
    return names;
}

}  // namespace glueprof
