#pragma once
// The toggle catalogue: every glue-code optimization glueprof's reference trainer can switch, as
// data — its name, what its optimized arm changes, the timing metric it exists to move, whether it
// needs MoE layers and which advisor rule recommends it. Torch-free, so the readers of a trace
// (analyzers, reports, the GUI, `check`) name toggles from here without pulling in ATen;
// optimizations/ToggleRegistry attaches to each entry how it changes the trainer's settings.
// Names are stored in runs (`runs.toggle`, `toggles_json`): never rename.
#include <string>
#include <string_view>
#include <vector>

#include "profiler/core/TargetMetric.h"
#include "profiler/core/TimingMetric.h"

namespace glueprof {

// The advisor's rules that recommend a toggle (analyzers/Advisor.h says what each looks for). Named
// here once: the advisor emits them, the catalogue maps them to toggles.
namespace advisor_rules {
constexpr const char* kRepeatedPackedMetadata = "repeated_packed_metadata";
constexpr const char* kPerExpertRoutingReads = "per_expert_routing_reads";
constexpr const char* kBincountHiddenRead = "bincount_hidden_read";
constexpr const char* kExposedReloads = "exposed_reloads";
constexpr const char* kStageImbalance = "stage_imbalance";
constexpr const char* kRepeatedGlue = "repeated_glue";  // no toggle yet
// The same op blocking the host many times per step (GPU traces, imported ones included).
constexpr const char* kRepeatedHostSyncs = "repeated_host_syncs";
// Gradient all-reduces each blocking the trainer (one per parameter) exposing the communication.
constexpr const char* kBlockingAllReduces = "blocking_all_reduces";
}  // namespace advisor_rules

struct ToggleInfo {
    std::string name;
    std::string description;                           // one line: what the optimized arm changes
    TimingMetric primaryMetric = TimingMetric::kStep;  // the metric the A/B verdict is about
    bool moeOnly = false;                              // only meaningful on a model with MoE layers
    std::string advisorRule;  // the advisor rule that recommends it; "" when none does
    TargetMetric target = TargetMetric::kNone;  // what it exists to move (its target verdict)
    bool ranksOnly = false;       // only meaningful with several ranks (data parallelism, --nproc)
    bool oneProcessOnly = false;  // pipelines one process's model: not with several ranks
};

// In the order `ab --all` runs them and the CLI lists them.
const std::vector<ToggleInfo>& toggleCatalog();
const ToggleInfo* findToggleInfo(std::string_view name);  // nullptr when unknown
// The toggle an advisor rule recommends ("" when none).
std::string toggleForAdvisorRule(std::string_view rule);
// The metric an A/B of `toggle` is judged on: the catalogue's, step time for an unknown name.
// The toggle's target metric; kNone for a name outside the catalogue.
TargetMetric targetMetricOf(std::string_view toggle);
TimingMetric primaryMetricOf(std::string_view toggle);
std::string toggleNames();  // "a, b, c" for messages
// Why `toggle` cannot run on a model with `worldSize` ranks (empty when it can): `ab --all` skips
// it with this reason.
std::string notApplicableReason(const ToggleInfo& toggle, bool modelIsMoe, int worldSize = 1);

}  // namespace glueprof
