#pragma once
// What a decoder layer needs besides its input: the packed micro-batch, where its metadata comes
// from, how MoE tokens are routed, where checkpoints are offloaded, the rotary tables for its
// positions, and whether this call is the checkpoint recompute.
#include <torch/torch.h>

#include "optimizations/activation_offload/ActivationOffload.h"
#include "optimizations/moe_routing/MoeRouting.h"
#include "optimizations/packed_metadata/PackedMetadata.h"

namespace glueprof {

class HostTracer;
struct PackedBatch;

struct ForwardContext {
    const PackedBatch* batch = nullptr;
    PackedMetadataProvider* packedMetadata = nullptr;
    HostTracer* tracer = nullptr;  // null: tracing off
    MoeRoutingMode moeRouting = MoeRoutingMode::kPerExpert;
    ActivationOffloader* offloader = nullptr;  // null or disabled: checkpoints stay on the device
    torch::Tensor ropeCos;                     // [T, headDim/2] for this micro-batch's positions
    torch::Tensor ropeSin;
    bool recompute = false;
};

}  // namespace glueprof
