#pragma once
// The toggle catalogue: every glue-code optimization glueprof's reference trainer can switch, as
// data — its name, what its optimized arm changes, the timing metric it exists to move, whether it
// needs MoE layers. Torch-free, so the readers of a trace (analyzers, reports, the GUI, `check`)
// name toggles from here without pulling in ATen; optimizations/ToggleRegistry attaches to each
// entry how it changes the trainer's settings, analyzers/AdvisorRules which rule recommends it.
// Names are stored in runs (`runs.toggle`, `toggles_json`): never rename.
#include <string>
#include <string_view>
#include <vector>

#include "profiler/core/TargetMetric.h"
#include "profiler/core/TimingMetric.h"

namespace glueprof {

struct ToggleInfo {
    std::string name;
    std::string description;                           // one line: what the optimized arm changes
    TimingMetric primaryMetric = TimingMetric::kStep;  // the metric the A/B verdict is about
    bool moeOnly = false;                              // only meaningful on a model with MoE layers
    TargetMetric target = TargetMetric::kNone;  // what it exists to move (its target verdict)
    bool ranksOnly = false;       // only meaningful with several ranks (data parallelism, --nproc)
    bool oneProcessOnly = false;  // pipelines one process's model: not with several ranks
    // A calibration aid, not an optimization: run only by name, never by `ab --all`.
    bool calibrationOnly = false;
};

// In the order `ab --all` runs them (calibration aids excepted) and the CLI lists them.
const std::vector<ToggleInfo>& toggleCatalog();
const ToggleInfo* findToggleInfo(std::string_view name);  // nullptr when unknown
// The toggle's target metric; kNone for a name outside the catalogue.
TargetMetric targetMetricOf(std::string_view toggle);
// The metric an A/B of `toggle` is judged on: the catalogue's, step time for an unknown name.
TimingMetric primaryMetricOf(std::string_view toggle);
std::string toggleNames();  // "a, b, c" for messages
// Why `toggle` cannot run on a model with `worldSize` ranks (empty when it can): `ab --all` skips
// it with this reason.
std::string notApplicableReason(const ToggleInfo& toggle, bool modelIsMoe, int worldSize = 1);

}  // namespace glueprof
