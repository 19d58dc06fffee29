#pragma once
// The advisor: rules over one baseline trace that recognise a glue pattern, name the toggle that
// addresses it and estimate, from the trace, the time it could save per step.
//   repeated_packed_metadata  build_packed_mask repeated per layer (and recompute) beyond once per
//                             micro-batch -> packed_cache (packed_vectorized when it reads the
//                             host); saving: the repeated runs' time (RepeatedWork's avoidable
//                             time).
//   per_expert_routing_reads  moe_routing ranges with more than two would-sync ops per pass
//   (grouping
//                             once costs a bincount and its copy) -> moe_group_once; saving: the
//                             time of all but one sync op per routing pass.
//   bincount_hidden_read      routing that counts with bincount (a read hidden in the op) ->
//                             moe_sync_free; saving: the bincounts' time.
//   exposed_reloads           reload copies mostly not overlapped by compute -> double_buffer;
//                             saving: the reloads' exposed time per step.
//   stage_imbalance           pipeline worker lanes whose busy times differ by more than 10% ->
//                             roundpipe; saving: makespan x (1 - mean busy / max busy) per step.
//   repeated_glue             any other glue range repeated per layer: no toggle yet; its avoidable
//   time.
//   repeated_host_syncs       (GPU traces) one op blocking the host 4+ times per step (a per-expert
//                             or per-layer read loop, a copy from pageable memory per tensor) ->
//                             moe_group_once inside a routing range, packed_cache inside a mask
//                             range, else no toggle; saving: its blocked time beyond one sync per
//                             step. Syncs inside moe_routing / build_packed_mask are the rules
//                             above's.
//   repeated_would_syncs      (traces without host syncs: CPU runs, `glueprof profile` on a CPU)
//                             one op that blocks the host on a GPU (.item(), .tolist(), nonzero)
//                             issued 4+ times per step from one range, named with the range (an
//                             optimizer's per-parameter loop: `Optimizer.step#AdamW.step`) and
//                             what removes it; no toggle; saving: those ops' own time beyond one
//                             per step (on a GPU each also waits for the device).
//   per_layer_glue            (a profiled program's model: layers recorded as "nn.Module: CLASS")
//                             the ops every layer issues besides its math (shape, dtype, rotary
//                             and mask arithmetic), named with their count per layer, when they
//                             take 10%+ of the layers' host time; no toggle; saving: their own
//                             time per step beyond one layer's (what hoisting the layer-invariant
//                             part out of the loop, or fusing it, can remove at most).
// GPU traces (analyzers/DeviceAdvisorRules; savings per step, at most the idle or blocked time the
// fix removes; no toggle, the fix named in the user's terms):
//   launch_bound              the whole GPU idle 30%+ of its span, that idle mostly HTA's host wait
//                             with the host in torch ops or runtime calls, most kernels under 10 us
//                             -> CUDA graphs, torch.compile (mode="reduce-overhead"), larger
//                             batches; saving: the host-wait time with the whole GPU idle.
//   exposed_communication     communication kernels with 5%+ of the GPU timeline exposed (no
//                             computation beside them) -> DDP bucket size, overlap, no_sync with
//                             gradient accumulation; saving: the exposed communication.
//   pageable_copies           copies to or from pageable host memory in measured steps, named
//                             with the op that issues them -> pinned memory and non_blocking=True;
//                             saving: the host time in those calls from each copy's start on.
//   sync_stalls               host syncs in measured steps after which the whole GPU is idle 5%+
//                             of step time until the next launch, named by the program's op ->
//                             keep the value on the GPU, read it later or every N steps;
//                             saving: that idle.
//   elementwise_fusion        elementwise kernels 20%+ of kernel time, 10+ per step -> fusion
//                             (torch.compile); saving: the short gaps before them, GPU idle.
//   allocator_churn           cudaMalloc/cudaFree calls in the measured steps after the first ->
//                             caching allocator settings; saving: the host time in those calls.
//   data_loader_stall         the GPU idle at each step's start while the host runs no torch op
//                             -> DataLoader workers, pin_memory, prefetch; saving: that idle time.
//   host_outside_torch        the GPU idle 30%+ of the measured steps after their first device work
//                             while no host thread runs a torch op -> find the host code
//                             (with_stack, py-spy), take it off the step; saving: that idle.
//   cross_stream_waits        the whole GPU's idle mostly HTA's "other" idle (waits on other
//                             streams, events), stream waits in the trace -> review the streams'
//                             dependencies; saving: that idle.
//   warmup_in_profile         runtime calls of 1 ms or more that are no wait (launches in any
//                             measured step; context, allocation, stream and library setup in the
//                             first) taking 10%+ of the measured steps: first-call costs -> profile
//                             steady-state steps (a torch.profiler schedule with warm-up); saving:
//                             those calls' time.
#include <string>
#include <vector>

#include "analyzers/CopyOverlap.h"
#include "analyzers/DeviceTimeline.h"
#include "analyzers/GlueOverhead.h"
#include "analyzers/IdleBreakdown.h"
#include "analyzers/LaunchStats.h"
#include "analyzers/PerLayerWork.h"
#include "analyzers/RepeatedWork.h"
#include "analyzers/SyncPoints.h"
#include "profiler/core/TraceModel.h"

namespace glueprof {

struct Finding {
    std::string rule;
    std::string toggle;    // the toggle that addresses it; "" when none exists
    std::string evidence;  // one sentence with the numbers
    double savingMsPerStep = 0.0;
    // The run is the user's program (profiled or imported), not the reference trainer: the fix is
    // a change to that program, and a toggle only names the trainer's version of it.
    bool inUserProgram = false;
};

struct AdvisorInput {
    const TraceModel* trace = nullptr;
    const RepeatedWorkResult* repeated = nullptr;
    const CopyOverlapResult* copies = nullptr;
    const SyncPointsResult* syncs = nullptr;   // optional: the repeated_host_syncs rule reads it
    const GlueOverheadResult* glue = nullptr;  // optional: the blocking_all_reduces rule reads it
    const PerLayerWorkResult* perLayer = nullptr;  // optional: the per_layer_glue rule reads it
    // Optional, GPU traces: the device rules (analyzers/DeviceAdvisorRules) read them.
    const std::vector<StreamIdle>* idle = nullptr;
    const LaunchStatsResult* launches = nullptr;
    const DeviceTimelineResult* timeline = nullptr;
};

// Findings sorted by estimated saving, largest first.
std::vector<Finding> advise(const AdvisorInput& input);

}  // namespace glueprof
