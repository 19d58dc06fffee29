#pragma once
// Whether this glueprof can run several ranks on CUDA (NCCL), for `doctor`. Torch-free header.
#include <string>

namespace glueprof {

// "built: nccl.h X, torch's NCCL Y (PATH of the libnccl loaded)", or "not built: WHY".
std::string ncclStatus();

}  // namespace glueprof
