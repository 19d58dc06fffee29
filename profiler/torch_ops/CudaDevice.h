#pragma once
// Which GPU this process trains on: whether libtorch sees CUDA and the GPU a rank was given
// (its LOCAL_RANK: one GPU per rank, as NCCL requires), and making that GPU the current one so
// the streams, the caching allocator and NCCL's communicators of this process all use it.
// Torch-free header; compiles against a CPU-only libtorch (the CUDA calls go through c10's
// device guard registry).
#include <string>

namespace glueprof {

// The CUDA this libtorch was built with ("13.0"), or "" for a CPU-only libtorch.
std::string torchCudaVersion();

// Whether this libtorch sees a CUDA device (asked once); `why` says what is missing when not: a
// CPU-only libtorch, or the driver's own reason ("no CUDA device: ...", cupti::cudaDriverStatus).
bool cudaAvailable(std::string& why);

// Whether GPU `index` exists for this process; `why` names the GPUs it sees and the fix when not.
bool cudaDeviceAvailable(int index, std::string& why);

// The GPU of a rank with local rank `localRank` on its machine: that one, or GPU 0 when this
// process sees exactly one (a launcher that gives each task its own GPU, as srun
// --gpus-per-task=1 does, leaves the local rank pointing past it).
int cudaDeviceOfLocalRank(int localRank);

// Makes GPU `index` this process's current CUDA device (the GPU must exist).
void useCudaDevice(int index);

}  // namespace glueprof
