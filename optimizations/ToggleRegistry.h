#pragma once
// The toggle registry: every glue-code optimization the reference trainer can switch, with the
// settings its optimized arm changes. The CLI, the GUI and `ab --all` list toggles from here only.
#include <string>
#include <vector>

#include "optimizations/packed_metadata/PackedMetadata.h"

namespace glueprof {

// What the optimizations change in the trainer; the defaults are the baseline.
struct OptimizationSettings {
    PackedMetadataMode packedMetadata = PackedMetadataMode::kRebuild;
};

struct Toggle {
    std::string name;
    std::string description;     // one line: what the optimized arm changes
    std::string primaryMetric;   // the timing metric the toggle is expected to move
    void (*apply)(OptimizationSettings& settings);
};

const std::vector<Toggle>& toggleRegistry();
const Toggle* findToggle(const std::string& name);  // nullptr when unknown
std::string toggleNames();                          // "a, b, c" for messages

}  // namespace glueprof
