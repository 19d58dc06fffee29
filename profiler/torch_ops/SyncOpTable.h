#pragma once
// The table of aten ops that block the host on CUDA: the one place that says which op is a
// sync point (docs/metrics.md lists it). On CPU runs these ops do not block, but they would on a
// GPU, so glueprof counts them as "would-sync" ops.
#include <string_view>
#include <vector>

namespace glueprof {

enum class SyncKind {
    kNone = 0,
    kHostRead,      // reads a device value to the host (item, _local_scalar_dense, is_nonzero)
    kOutputSize,    // its output size depends on device data, so the host must wait for it
    kDeviceToHost,  // an explicit device->host copy made by glue code (glueprof::to_host)
};

struct SyncOpInfo {
    const char* name;
    SyncKind kind;
    const char* why;
};

const std::vector<SyncOpInfo>& syncOpTable();
SyncKind classifySyncOp(std::string_view opName);
const char* toString(SyncKind kind);

// The RecordFunction name of copyToHost (profiler/torch_ops/HostRead.h).
constexpr const char* kHostReadOpName = "glueprof::to_host";

}  // namespace glueprof
