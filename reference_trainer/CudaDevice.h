#pragma once
// Which GPU this process trains on: whether libtorch sees CUDA and the GPU a rank was given
// (its LOCAL_RANK: one GPU per rank, as NCCL requires), and making that GPU the current one so
// the streams, the caching allocator and NCCL's communicators of this process all use it.
// Torch-free header; compiles against a CPU-only libtorch (the CUDA calls go through c10's
// device guard registry).
#include <string>

namespace glueprof {

// Whether this libtorch sees a CUDA device (asked once); `why` says what is missing when not.
bool cudaAvailable(std::string& why);

// Whether GPU `index` exists for this process; `why` names the GPUs it sees and the fix when not.
bool cudaDeviceAvailable(int index, std::string& why);

// Makes GPU `index` this process's current CUDA device (the GPU must exist).
void useCudaDevice(int index);

}  // namespace glueprof
