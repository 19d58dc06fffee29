#pragma once
// Whether this process has a CUDA device, asked of the NVIDIA driver itself (libcuda.so.1, loaded
// at run time: cuInit, cuDeviceGetCount), with the driver's own words when it has none. Free of
// cuda.h and cupti.h, so builds without the CUDA toolkit and torch-side code use it too.
#include <string>

namespace glueprof::cupti {

struct CudaDriverStatus {
    bool driverLoaded = false;  // libcuda.so.1 loaded (and kept loaded: CUPTI needs it)
    int devices = 0;            // cuDeviceGetCount after a successful cuInit
    // "" when a device exists; else one line that starts "no CUDA device: " and says why (the
    // loader's or the driver's message) and what to do.
    std::string reason;
};

// Asked once per process (cuInit's result does not change); later calls return the same answer.
const CudaDriverStatus& cudaDriverStatus();

}  // namespace glueprof::cupti
