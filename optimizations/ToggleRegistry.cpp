#include "optimizations/ToggleRegistry.h"

#include <stdexcept>

namespace glueprof {

namespace {

using Apply = void (*)(OptimizationSettings&);

void offloadSingleBuffer(OptimizationSettings& s) { s.offload.mode = OffloadMode::kSingleBuffer; }
void loopedBfs(OptimizationSettings& s) { s.pipeline.mode = PipelineMode::kLoopedBfs; }

struct Settings {
    const char* name;
    Apply apply;
    Apply baseline;
};

// How each catalogue toggle changes the settings (the catalogue says what it means).
const Settings kSettings[] = {
    {"packed_cache",
     [](OptimizationSettings& s) { s.packedMetadata = PackedMetadataMode::kCached; }, nullptr},
    {"packed_vectorized",
     [](OptimizationSettings& s) { s.packedMetadata = PackedMetadataMode::kVectorized; }, nullptr},
    {"offload", offloadSingleBuffer, nullptr},
    {"double_buffer", [](OptimizationSettings& s) { s.offload.mode = OffloadMode::kDoubleBuffer; },
     offloadSingleBuffer},
    {"prefetch",
     [](OptimizationSettings& s) {
         s.offload.mode = OffloadMode::kDoubleBuffer;
         s.offload.prefetch = true;
     },
     offloadSingleBuffer},
    {"moe_group_once", [](OptimizationSettings& s) { s.moeRouting = MoeRoutingMode::kGroupOnce; },
     nullptr},
    {"moe_sync_free", [](OptimizationSettings& s) { s.moeRouting = MoeRoutingMode::kSyncFree; },
     nullptr},
    {"roundpipe", [](OptimizationSettings& s) { s.pipeline.mode = PipelineMode::kRoundPipe; },
     loopedBfs},
    {"calibration_delay", [](OptimizationSettings& s) { s.calibration.delayOn = false; },
     [](OptimizationSettings& s) { s.calibration.delayOn = true; }},
    {"ddp_overlap",
     [](OptimizationSettings& s) { s.gradientSync.mode = GradientSyncMode::kBucketedOverlap; },
     nullptr},
};

std::vector<Toggle> buildRegistry() {
    // Settings for a name the catalogue lacks would never run: as much a programming error.
    for (const Settings& s : kSettings) {
        if (findToggleInfo(s.name) == nullptr) {
            throw std::logic_error(std::string("settings for a toggle not in the catalogue: ") +
                                   s.name);
        }
    }
    std::vector<Toggle> toggles;
    for (const ToggleInfo& info : toggleCatalog()) {
        const Settings* found = nullptr;
        for (const Settings& s : kSettings) {
            if (info.name == s.name) found = &s;
        }
        // A catalogue entry without settings is a programming error caught by every test run.
        if (found == nullptr) throw std::logic_error("toggle without settings: " + info.name);
        toggles.push_back(Toggle{&info, found->apply, found->baseline});
    }
    return toggles;
}

}  // namespace

const std::vector<Toggle>& toggleRegistry() {
    static const std::vector<Toggle> kToggles = buildRegistry();
    return kToggles;
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
        if (toggle.name() == name) return &toggle;
    }
    return nullptr;
}

}  // namespace glueprof
