#include "optimizations/ToggleRegistry.h"

namespace glueprof {

namespace {
void offloadSingleBuffer(OptimizationSettings& s) { s.offload.mode = OffloadMode::kSingleBuffer; }
void loopedBfs(OptimizationSettings& s) { s.pipeline.mode = PipelineMode::kLoopedBfs; }
}  // namespace

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
        {"offload",
         "offload each checkpointed layer input to host memory in forward and reload it before the "
         "recompute (saves device memory, costs copies)",
         "backward_ms", offloadSingleBuffer},
        {"double_buffer",
         "reload offloaded inputs into two device buffers, each copy waiting only for its buffer's "
         "last use, so the reload of layer i-1 overlaps the backward of layer i",
         "backward_ms",
         [](OptimizationSettings& s) { s.offload.mode = OffloadMode::kDoubleBuffer; },
         offloadSingleBuffer},
        {"prefetch",
         "double buffering with the reload of layer i-1 issued before the recompute of layer i "
         "is launched",
         "backward_ms",
         [](OptimizationSettings& s) {
             s.offload.mode = OffloadMode::kDoubleBuffer;
             s.offload.prefetch = true;
         },
         offloadSingleBuffer},
        {"moe_group_once",
         "route MoE tokens with one stable sort by expert and one bincount per layer instead of "
         "a where() per expert (E host reads per layer -> 1)",
         "forward_ms", [](OptimizationSettings& s) { s.moeRouting = MoeRoutingMode::kGroupOnce; },
         nullptr, true},
        {"moe_sync_free",
         "as moe_group_once, with expert counts by scatter_add_ on the device and one host copy "
         "(no read hidden in bincount)",
         "forward_ms", [](OptimizationSettings& s) { s.moeRouting = MoeRoutingMode::kSyncFree; },
         nullptr, true},
        {"roundpipe",
         "run the model as a pipeline on 2 workers with stages dealt round-robin to a stateless "
         "worker "
         "pool (RoundPipe) instead of bound to workers (Looped-BFS, the baseline)",
         "step_ms", [](OptimizationSettings& s) { s.pipeline.mode = PipelineMode::kRoundPipe; },
         loopedBfs},
    };
    return kToggles;
}

std::string notApplicableReason(const Toggle& toggle, bool modelIsMoe) {
    if (toggle.moeOnly && !modelIsMoe) {
        return "the model has no MoE layers (use a MoE preset: moe-tiny, moe-small, gpt-oss-20b)";
    }
    return {};
}

OptimizationSettings baselineSettings(const Toggle& toggle, OptimizationSettings base) {
    if (toggle.baseline != nullptr) toggle.baseline(base);
    return base;
}

OptimizationSettings optimizedSettings(const Toggle& toggle, OptimizationSettings base) {
    base = baselineSettings(toggle, base);
    toggle.apply(base);
    return base;
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
