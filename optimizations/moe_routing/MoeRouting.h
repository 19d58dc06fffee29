#pragma once
// MoE routing: which tokens each expert serves, from the router's top-k expert ids. Three ways,
// one per toggle arm, all returning the same token lists (ascending token order per expert):
//   kPerExpert (baseline)        for every expert e, torch::where(top_experts == e): one nonzero,
//                                so one host read, per expert per layer pass (forward and again
//                                in the checkpoint recompute), as the unoptimized gpt-oss path.
//   kGroupOnce (moe_group_once)  flatten the assignments, stable-sort them by expert id, one
//                                bincount copied to the host, offsets, then slices: one host read
//                                point per layer pass.
//   kSyncFree  (moe_sync_free)   as kGroupOnce, but the counts come from scatter_add_ of ones on
//                                the device and one explicit host copy: no read hidden in bincount.
// A stable sort keeps each expert's tokens in ascending order, exactly as where() returns them,
// so the experts see identical inputs and the combine adds in the same order: outputs and
// gradients are bit-identical across the three.
#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "optimizations/moe_routing/MoeRoutingMode.h"

namespace glueprof {

class HostTracer;

// The tokens one expert serves.
struct ExpertTokens {
    std::int64_t expert = 0;
    at::Tensor tokens;  // [n] int64 token indices, ascending, n > 0
};

// topExperts: [T, K] int64 expert ids (each token picks K distinct experts).
// Returns one entry per expert that received at least one token, in expert order. Records a
// `moe_routing` glue range and counts host reads into the tracer's routing_host_reads counter.
std::vector<ExpertTokens> routeTokens(MoeRoutingMode mode, const at::Tensor& topExperts,
                                      std::int64_t experts, HostTracer* tracer);

}  // namespace glueprof
