#pragma once
// The toggle registry: for every toggle of the catalogue (profiler/core/ToggleCatalog.h: name,
// description, metric, MoE-only), the settings its optimized arm changes in the trainer. The CLI,
// the GUI and `ab --all` list toggles from the catalogue; what runs a toggle comes from here.
// Torch-free: the settings are plain enums.
#include <string>
#include <vector>

#include "optimizations/activation_offload/OffloadSettings.h"
#include "optimizations/calibration/CalibrationDelay.h"
#include "optimizations/gradient_sync/GradientSyncSettings.h"
#include "optimizations/moe_routing/MoeRoutingMode.h"
#include "optimizations/packed_metadata/PackedMetadataMode.h"
#include "optimizations/pipeline_schedule/PipelineSettings.h"
#include "profiler/core/ToggleCatalog.h"

namespace glueprof {

// What the optimizations change in the trainer; the defaults are the baseline.
struct OptimizationSettings {
    PackedMetadataMode packedMetadata = PackedMetadataMode::kRebuild;
    MoeRoutingMode moeRouting = MoeRoutingMode::kPerExpert;
    OffloadSettings offload;
    PipelineSettings pipeline;
    GradientSyncSettings gradientSync;  // data-parallel runs (several ranks)
    CalibrationSettings calibration;    // the calibration aid (never an optimization)
};

struct Toggle {
    const ToggleInfo* info = nullptr;  // the catalogue's entry: name, description, metric
    void (*apply)(OptimizationSettings& settings) = nullptr;
    // What both arms need first (the double_buffer baseline offloads with one buffer); may be null.
    void (*baseline)(OptimizationSettings& settings) = nullptr;

    const std::string& name() const { return info->name; }
};

// Baseline settings of an A/B of `toggle` (the base with toggle.baseline applied) and optimized.
OptimizationSettings baselineSettings(const Toggle& toggle, OptimizationSettings base);
OptimizationSettings optimizedSettings(const Toggle& toggle, OptimizationSettings base);

// One entry per catalogue toggle, in the catalogue's order.
const std::vector<Toggle>& toggleRegistry();
const Toggle* findToggle(const std::string& name);  // nullptr when unknown

}  // namespace glueprof
