#include "profiler/core/ToggleCatalog.h"

namespace glueprof {

const std::vector<ToggleInfo>& toggleCatalog() {
    static const std::vector<ToggleInfo> kCatalog = {
        {"packed_cache",
         "build the packed-sequence mask and cu_seqlens once per micro-batch instead of in every "
         "layer and recompute",
         TimingMetric::kForward, false, TargetMetric::kMaskBuild},
        {"packed_vectorized",
         "build the packed mask from segment ids in a constant number of ops, with no host reads, "
         "once per micro-batch",
         TimingMetric::kForward, false, TargetMetric::kMaskBuild},
        {"offload",
         "offload each checkpointed layer input to host memory in forward and reload it before the "
         "recompute (saves device memory, costs copies)",
         TimingMetric::kBackward, false, TargetMetric::kReloadWait},
        {"double_buffer",
         "reload offloaded inputs into two device buffers, each copy waiting only for its buffer's "
         "last use, so the reload of layer i-1 overlaps the backward of layer i",
         TimingMetric::kBackward, false, TargetMetric::kReloadWait},
        {"prefetch",
         "double buffering with the reload of layer i-1 issued before the recompute of layer i "
         "is launched",
         TimingMetric::kBackward, false, TargetMetric::kReloadWait},
        {"moe_group_once",
         "route MoE tokens with one stable sort by expert and one bincount per layer instead of "
         "a where() per expert (E host reads per layer pass -> 2: bincount's size and the counts)",
         TimingMetric::kForward, true, TargetMetric::kRouting},
        {"moe_sync_free",
         "as moe_group_once, with expert counts by scatter_add_ on the device and one host copy "
         "(no read hidden in bincount)",
         TimingMetric::kForward, true, TargetMetric::kRouting},
        {"roundpipe",
         "run the model as a pipeline on 2 workers with stages dealt round-robin to a stateless "
         "worker pool (RoundPipe) instead of bound to workers (Looped-BFS, the baseline)",
         TimingMetric::kStep, false, TargetMetric::kMakespan, false, true},
        {"ddp_overlap",
         "average gradients in 25 MiB buckets whose all-reduce starts as soon as the bucket's "
         "gradients are ready in backward, waited for only before the optimizer (DDP), instead of "
         "one blocking all-reduce per parameter after backward",
         TimingMetric::kStep, false, TargetMetric::kExposedComm, true},
        {"calibration_delay",
         "calibration aid, not part of --all: the baseline arm spins for a fixed share of each "
         "step (--calibration-delay, default 5%) inside a calibration_delay range, the optimized "
         "arm does not: an effect of known size, to see what an A/B detects",
         TimingMetric::kStep, false, TargetMetric::kCalibrationDelay, false, false, true},
    };
    return kCatalog;
}

const ToggleInfo* findToggleInfo(std::string_view name) {
    for (const ToggleInfo& toggle : toggleCatalog()) {
        if (toggle.name == name) return &toggle;
    }
    return nullptr;
}

TargetMetric targetMetricOf(std::string_view toggle) {
    const ToggleInfo* info = findToggleInfo(toggle);
    return info != nullptr ? info->target : TargetMetric::kNone;
}

TimingMetric primaryMetricOf(std::string_view toggle) {
    const ToggleInfo* info = findToggleInfo(toggle);
    return info != nullptr ? info->primaryMetric : TimingMetric::kStep;
}

std::string toggleNames() {
    std::string names;
    for (const ToggleInfo& toggle : toggleCatalog()) {
        names += (names.empty() ? "" : ", ") + toggle.name;
    }
    return names;
}

std::string notApplicableReason(const ToggleInfo& toggle, bool modelIsMoe, int worldSize) {
    if (toggle.moeOnly && !modelIsMoe) {
        return "the model has no MoE layers (use a MoE preset: moe-tiny, moe-small, gpt-oss-20b)";
    }
    if (toggle.ranksOnly && worldSize < 2) {
        return "it changes how ranks average gradients: run it with several ranks "
               "(glueprof ab --nproc 2 --opt " +
               toggle.name + ")";
    }
    if (toggle.oneProcessOnly && worldSize > 1) {
        return "it pipelines one process's model, which data parallelism over ranks does not "
               "combine with yet: run it without --nproc";
    }
    return {};
}

}  // namespace glueprof
