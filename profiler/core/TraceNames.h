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
constexpr const char* kMaskBuild = "build_packed_mask";

}  // namespace glueprof::names
