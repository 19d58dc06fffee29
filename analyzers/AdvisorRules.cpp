#include "analyzers/AdvisorRules.h"

#include <stdexcept>

#include "analyzers/AdvisorRuleFunctions.h"

namespace glueprof {

double AdvisorRule::threshold(std::string_view name) const {
    for (const RuleThreshold& t : thresholds) {
        if (name == t.name) return t.value;
    }
    throw std::logic_error("advisor rule " + std::string(id) + " has no threshold " +
                           std::string(name));
}

const std::vector<AdvisorRule>& advisorRules() {
    namespace r = advisor_rules;
    namespace f = rule_functions;
    using S = RuleScope;
    static const std::vector<AdvisorRule> rules = {
        {r::kRepeatedPackedMetadata,
         "packed_cache",
         S::kTrace,
         "build_packed_mask repeated per layer (and recompute) beyond once per micro-batch; "
         "saving: the repeated runs' time",
         {},
         f::repeatedPackedMetadata},
        {r::kRepeatedGlue,
         "",
         S::kTrace,
         "any other glue range repeated per layer: no toggle yet; saving: its avoidable time",
         {},
         f::repeatedGlue},
        {r::kPerExpertRoutingReads,
         "moe_group_once",
         S::kTrace,
         "moe_routing ranges with more host-synchronizing reads per pass than grouping once "
         "needs; saving: all but the longest read per pass",
         {{"max_reads_per_pass", 2.0, "reads per routing pass grouping once costs"}},
         f::perExpertRoutingReads},
        {r::kBincountHiddenRead,
         "moe_sync_free",
         S::kTrace,
         "routing that counts with bincount (a host read hidden in the op); saving: the "
         "bincounts' time",
         {},
         f::bincountHiddenRead},
        {r::kExposedReloads,
         "double_buffer",
         S::kTrace,
         "checkpoint reload copies mostly not overlapped by compute; saving: their exposed time",
         {{"max_overlap", 0.5, "share of the reloads' time compute covers, at most"}},
         f::exposedReloads},
        {r::kStageImbalance,
         "roundpipe",
         S::kTrace,
         "pipeline workers whose busy times differ; saving: makespan x (1 - mean busy / max "
         "busy)",
         {{"min_busiest_over_mean", 1.1, "the busiest worker's time over the mean, at least"}},
         f::stageImbalance},
        {r::kRepeatedHostSyncs,
         "",
         S::kTrace,
         "(GPU traces) one op blocking the host many times per step; moe_group_once inside a "
         "routing range, packed_cache inside a mask range; saving: its blocked time beyond one "
         "per step",
         {{"min_per_step", 4.0, "syncs of one op and range per step"}},
         f::repeatedHostSyncs},
        {r::kRepeatedWouldSyncs,
         "",
         S::kTrace,
         "(traces without host syncs) one op that blocks on a GPU issued many times per step "
         "from one range; saving: those ops' time beyond one per step",
         {{"min_per_step", 4.0, "ops of one name and range per step"}},
         f::repeatedWouldSyncs},
        {r::kPerLayerGlue,
         "",
         S::kTrace,
         "the ops every layer of a profiled model issues besides its math; saving: their "
         "shape/copy time beyond one layer's",
         {{"min_share", 0.10, "of the layers' host time"}},
         f::perLayerGlue},
        {r::kBlockingAllReduces,
         "ddp_overlap",
         S::kTrace,
         "gradient all-reduces each blocking the trainer; saving: the exposed communication",
         {{"min_per_step", 2.0, "all-reduces per step"},
          {"min_exposed_share", 0.05, "of the step, exposed communication"}},
         f::blockingAllReduces},
        {r::kLaunchBound,
         "",
         S::kDevice,
         "the whole GPU idle, mostly waiting for the host's launches while the host is in torch "
         "ops or runtime calls, short kernels; saving: the host-wait idle",
         {{"min_idle_share", 0.3, "of the GPU's span, whole-GPU idle"},
          {"min_host_wait_share", 0.5, "of that idle, HTA's host wait"},
          {"min_short_kernel_share", 0.5, "of the kernels, under 10 us"},
          {"min_host_busy_share", 0.5, "of the idle, the host in torch ops or runtime calls"}},
         f::launchBound},
        {r::kExposedCommunication,
         "",
         S::kDevice,
         "communication kernels with no computation beside them; saving: the exposed time",
         {{"min_exposed_share", 0.05, "of the GPU timeline"}},
         f::exposedCommunication},
        {r::kPageableCopies,
         "",
         S::kDevice,
         "copies to or from pageable host memory in measured steps, by the op that issues them; "
         "saving: the host time in those calls from each copy's start",
         {},
         f::pageableCopies},
        {r::kSyncStalls,
         "",
         S::kDevice,
         "host syncs in measured steps after which the whole GPU is idle until the next launch; "
         "saving: that idle",
         {{"min_idle_share", 0.05, "of the measured steps' time"}},
         f::syncStalls},
        {r::kElementwiseFusion,
         "",
         S::kDevice,
         "many short elementwise kernels; saving: the short gaps before them, GPU idle",
         {{"min_kernel_share", 0.2, "of kernel time, elementwise"},
          {"min_per_step", 10.0, "elementwise kernels per step"}},
         f::elementwiseFusion},
        {r::kAllocatorChurn,
         "",
         S::kDevice,
         "cudaMalloc/cudaFree calls in the measured steps after the first; saving: their host "
         "time",
         {},
         f::allocatorChurn},
        {r::kDataLoaderStall,
         "",
         S::kDevice,
         "the GPU idle at each step's start while the host runs no torch op; saving: that idle",
         {{"min_stalled_share", 0.1, "of the measured steps' time"}},
         f::dataLoaderStall},
        {r::kHostOutsideTorch,
         "",
         S::kDevice,
         "the GPU idle inside steps after their first device work while no host thread runs a "
         "torch op; saving: that idle",
         {{"min_share", 0.3, "of a measured step (median), that idle"}},
         f::hostOutsideTorch},
        {r::kCrossStreamWaits,
         "",
         S::kDevice,
         "the whole GPU's idle mostly HTA's other idle (waits on other streams, events); saving: "
         "that idle",
         {{"min_other_share", 0.5, "of the whole-GPU idle, HTA's other idle"},
          {"min_span_share", 0.1, "of the GPU's span, that idle"}},
         f::crossStreamWaits},
        {r::kWarmupInProfile,
         "",
         S::kDevice,
         "long runtime calls that are no wait (first-call costs) in the measured steps; saving: "
         "those calls' time",
         {{"min_call_ms", 1.0, "a call's duration"},
          {"min_share", 0.1, "of the measured steps' time"}},
         f::warmupInProfile},
    };
    return rules;
}

const AdvisorRule* findAdvisorRule(std::string_view id) {
    for (const AdvisorRule& rule : advisorRules()) {
        if (id == rule.id) return &rule;
    }
    return nullptr;
}

std::string toggleForAdvisorRule(std::string_view rule) {
    const AdvisorRule* found = findAdvisorRule(rule);
    return found != nullptr ? found->toggle : "";
}

}  // namespace glueprof
