#pragma once
// The JSON field names of pipeline costs, shared by the cost files (`simulate --costs`, CostFile.h)
// and the plan a pipelined run stores in its config ("pipeline_plan", SimulationTrace.h): per
// micro-batch milliseconds, per layer or for the LM head. Part of both formats: never rename.
namespace glueprof::pipeline::costkeys {

constexpr const char* kLayers = "layers";
constexpr const char* kForwardMs = "forward_ms";      // per layer
constexpr const char* kBackwardMs = "backward_ms";    // per layer, without the recompute
constexpr const char* kRecomputeMs = "recompute_ms";  // per layer, optional
constexpr const char* kHeadForwardMs = "head_forward_ms";
constexpr const char* kHeadBackwardMs = "head_backward_ms";
constexpr const char* kHopMs = "hop_ms";
constexpr const char* kOptimizerMs = "optimizer_ms";

}  // namespace glueprof::pipeline::costkeys
