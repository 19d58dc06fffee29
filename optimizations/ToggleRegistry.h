#pragma once
// The toggle registry: every glue-code optimization the reference trainer can switch, with the
// settings its optimized arm changes. The CLI, the GUI and `ab --all` list toggles from here only.
#include <string>
#include <vector>

#include "optimizations/activation_offload/ActivationOffload.h"
#include "optimizations/moe_routing/MoeRouting.h"
#include "optimizations/packed_metadata/PackedMetadata.h"
#include "optimizations/pipeline_schedule/PipelineSettings.h"

namespace glueprof {

// What the optimizations change in the trainer; the defaults are the baseline.
struct OptimizationSettings {
    PackedMetadataMode packedMetadata = PackedMetadataMode::kRebuild;
    MoeRoutingMode moeRouting = MoeRoutingMode::kPerExpert;
    OffloadSettings offload;
    PipelineSettings pipeline;
};

struct Toggle {
    std::string name;
    std::string description;    // one line: what the optimized arm changes
    std::string primaryMetric;  // the timing metric the toggle is expected to move
    void (*apply)(OptimizationSettings& settings);
    // What both arms need first (the double_buffer baseline offloads with one buffer); may be null.
    void (*baseline)(OptimizationSettings& settings) = nullptr;
    bool moeOnly = false;  // only meaningful on a model with MoE layers
};

// Why `toggle` cannot run on a model (empty when it can): `ab --all` skips it with this reason.
std::string notApplicableReason(const Toggle& toggle, bool modelIsMoe);
// Baseline settings of an A/B of `toggle` (the base with toggle.baseline applied) and optimized.
OptimizationSettings baselineSettings(const Toggle& toggle, OptimizationSettings base);
OptimizationSettings optimizedSettings(const Toggle& toggle, OptimizationSettings base);

const std::vector<Toggle>& toggleRegistry();
const Toggle* findToggle(const std::string& name);  // nullptr when unknown
std::string toggleNames();                          // "a, b, c" for messages

}  // namespace glueprof
