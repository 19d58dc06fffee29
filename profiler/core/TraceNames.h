#pragma once
// Names of the structural ranges that writers emit and analyzers read. Part of the trace format
// (docs/schema.md): never rename.
namespace glueprof::names {

constexpr const char* kStep = "step";
constexpr const char* kLoadBatch = "load_batch";
constexpr const char* kForward = "forward";
constexpr const char* kBackward = "backward";
constexpr const char* kRecompute = "recompute";
constexpr const char* kOptimizer = "optimizer";
constexpr const char* kLayer = "layer";
constexpr const char* kLayerBackward = "layer_backward";  // the gradient of one checkpointed layer
constexpr const char* kMaskBuild = "build_packed_mask";
constexpr const char* kMoeRouting = "moe_routing";  // glue: which tokens go to which expert
constexpr const char* kMoeExperts = "moe_experts";  // math: the experts and the combine
constexpr const char* kOffload = "offload";         // copy: a layer input to host memory
constexpr const char* kReload = "reload";           // copy: it back to a device buffer
constexpr const char* kWaitReload = "wait_reload";  // the compute waiting for a reload

}  // namespace glueprof::names
