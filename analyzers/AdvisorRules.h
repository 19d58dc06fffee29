#pragma once
// The advisor's rules (analyzers/Advisor.h says what each looks for) and the toggle of the
// reference trainer that addresses each, named once: the advisor emits the names, reports and the
// GUI show them, and a rule's toggle is what `advise` recommends. Rule names are stored in no
// database; the toggle names are the catalogue's (profiler/core/ToggleCatalog.h).
#include <string>
#include <string_view>

namespace glueprof {

namespace advisor_rules {
constexpr const char* kRepeatedPackedMetadata = "repeated_packed_metadata";
constexpr const char* kPerExpertRoutingReads = "per_expert_routing_reads";
constexpr const char* kBincountHiddenRead = "bincount_hidden_read";
constexpr const char* kExposedReloads = "exposed_reloads";
constexpr const char* kStageImbalance = "stage_imbalance";
constexpr const char* kRepeatedGlue = "repeated_glue";  // no toggle yet
// The same op blocking the host many times per step (GPU traces, imported ones included).
constexpr const char* kRepeatedHostSyncs = "repeated_host_syncs";
// The same would-sync op issued many times per step from one range (CPU traces: a profiled
// program's .item() in a per-parameter or per-layer loop, named with the range that issues it).
constexpr const char* kRepeatedWouldSyncs = "repeated_would_syncs";
// The ops every layer of a profiled program's model issues besides its math, named with counts.
constexpr const char* kPerLayerGlue = "per_layer_glue";
// Gradient all-reduces each blocking the trainer (one per parameter) exposing the communication.
constexpr const char* kBlockingAllReduces = "blocking_all_reduces";
// GPU traces (analyzers/DeviceAdvisorRules): no toggle of the trainer addresses these.
constexpr const char* kLaunchBound = "launch_bound";
constexpr const char* kExposedCommunication = "exposed_communication";
constexpr const char* kPageableCopies = "pageable_copies";
// Host syncs in measured steps after which the whole GPU sits idle until the next launch.
constexpr const char* kSyncStalls = "sync_stalls";
constexpr const char* kElementwiseFusion = "elementwise_fusion";
constexpr const char* kAllocatorChurn = "allocator_churn";
constexpr const char* kDataLoaderStall = "data_loader_stall";
// The GPU idle inside steps (after their first device work) with the host outside torch.
constexpr const char* kHostOutsideTorch = "host_outside_torch";
constexpr const char* kCrossStreamWaits = "cross_stream_waits";
constexpr const char* kWarmupInProfile = "warmup_in_profile";
}  // namespace advisor_rules

// The toggle that addresses a rule's pattern ("" when no toggle does).
std::string toggleForAdvisorRule(std::string_view rule);

}  // namespace glueprof
