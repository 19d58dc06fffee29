#pragma once
// The advisor's rules, each once, in one table: its id, the toggle of the reference trainer that
// addresses its pattern, whether it reads the device timeline, what it looks for, its thresholds as
// named parameters, the function that looks, the wording of its evidence and its fix. The advisor
// runs the table in order; reports, the GUI, `advise --rules` and docs/metrics.md ("Advisor") read
// it; a test checks that the docs name every rule and threshold. Rule ids are stored in no
// database; toggle names are the catalogue's (profiler/core/ToggleCatalog.h).
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/Advisor.h"

namespace glueprof {

namespace advisor_rules {
constexpr const char* kRepeatedPackedMetadata = "repeated_packed_metadata";
constexpr const char* kPerExpertRoutingReads = "per_expert_routing_reads";
constexpr const char* kBincountHiddenRead = "bincount_hidden_read";
constexpr const char* kExposedReloads = "exposed_reloads";
constexpr const char* kStageImbalance = "stage_imbalance";
constexpr const char* kRepeatedGlue = "repeated_glue";
constexpr const char* kRepeatedHostSyncs = "repeated_host_syncs";
constexpr const char* kRepeatedWouldSyncs = "repeated_would_syncs";
constexpr const char* kPerLayerGlue = "per_layer_glue";
constexpr const char* kBlockingAllReduces = "blocking_all_reduces";
constexpr const char* kLaunchBound = "launch_bound";
constexpr const char* kHostBoundOps = "host_bound_ops";
constexpr const char* kExposedCommunication = "exposed_communication";
constexpr const char* kPageableCopies = "pageable_copies";
constexpr const char* kSyncStalls = "sync_stalls";
constexpr const char* kElementwiseFusion = "elementwise_fusion";
constexpr const char* kAllocatorChurn = "allocator_churn";
constexpr const char* kDataLoaderStall = "data_loader_stall";
constexpr const char* kHostOutsideTorch = "host_outside_torch";
constexpr const char* kCrossStreamWaits = "cross_stream_waits";
constexpr const char* kWarmupInProfile = "warmup_in_profile";
constexpr const char* kJitCompile = "jit_compile";
constexpr const char* kFp32Gemms = "fp32_gemms";
constexpr const char* kSerializedStreams = "serialized_streams";
constexpr const char* kDataOnStepThread = "data_on_step_thread";
}  // namespace advisor_rules

// A threshold of a rule: where it fires.
struct RuleThreshold {
    const char* name;
    double value;
    const char* meaning;
};

struct DeviceView;  // what the device rules read of a GPU trace, once (DeviceAdvisorRules.cpp)

// What a rule reads: the advisor's input, and the device view of a trace with device work (null
// without; the advisor runs the device rules only where there is one).
struct AdvisorContext {
    const AdvisorInput& input;
    const DeviceView* device = nullptr;
};

struct AdvisorRule;
using RuleFunction = void (*)(const AdvisorContext& context, const AdvisorRule& rule,
                              std::vector<Finding>& findings);

enum class RuleScope {
    kTrace,   // any run: ranges, ops, would-sync reads, pipeline workers
    kDevice,  // a GPU trace's device timeline; its saving is at most the mean measured step
};

// A clause of a rule's wording: a fmt format string over the finding's metrics and references by
// name ("{op} blocks the host {per_step:g} times per step"). It is said when every name it uses is
// in the finding and `unless` (when set) is not: the data decides what the sentence says.
struct RuleClause {
    const char* text;
    const char* unless = nullptr;
};

struct AdvisorRule {
    const char* id;
    const char* toggle;  // "" when no toggle of the trainer addresses it
    RuleScope scope;
    const char* looksFor;  // what it looks for and what it offers, one sentence
    std::vector<RuleThreshold> thresholds;
    RuleFunction find;
    std::vector<RuleClause> says;  // the evidence sentence, clause by clause
    const char* fix;               // what to change (a finding may say more)
    // The step-time causes (StepAttribution.h) the fix removes: what bounds a finding's saving on
    // a GPU trace. Empty: a saving of host time, which the attribution of the device's time does
    // not bound (the trace rules, pageable_copies, allocator_churn).
    std::vector<StepCause> claims = {};
    // The rule reads what the host did while the GPU idled: it runs only on a trace that records
    // the host's side of the device's work (HostCoverage.h).
    bool readsHost = false;
    // The threshold's value; a logic error for a name the rule does not have.
    double threshold(std::string_view name) const;
};

// A finding's evidence sentence, rendered by its rule's clauses from the rule's thresholds and the
// finding's metrics and references, by name (a logic error when a clause's format does not fit
// them). A metric counted in `count` or `count/step` is said in full (countText), so its clause
// names it without a format spec. A role of several references is one list: "a, b", or "a (x);
// b (y)" when the details hold commas; a role with none is absent (a clause with `unless` says
// what then).
std::string sayFinding(const AdvisorRule& rule, const Finding& finding);
// Whether a metric's unit is a count ("count", "count/step").
bool isCountUnit(const std::string& unit);

// Every rule, in the order the advisor runs them.
const std::vector<AdvisorRule>& advisorRules();
// The rule with this id, or null.
const AdvisorRule* findAdvisorRule(std::string_view id);
// The toggle that addresses a rule's pattern ("" when no toggle does).
std::string toggleForAdvisorRule(std::string_view rule);

}  // namespace glueprof
