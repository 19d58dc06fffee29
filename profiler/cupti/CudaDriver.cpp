#include "profiler/cupti/CudaDriver.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace glueprof::cupti {

namespace {

// The driver API's result codes are an int enum (CUresult); 0 is CUDA_SUCCESS.
using CuInit = int (*)(unsigned int);
using CuDeviceGetCount = int (*)(int*);
using CuGetErrorText = int (*)(int, const char**);

std::string driverError(void* driver, int result) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (auto getName = reinterpret_cast<CuGetErrorText>(dlsym(driver, "cuGetErrorName"))) {
        getName(result, &name);
    }
    if (auto getString = reinterpret_cast<CuGetErrorText>(dlsym(driver, "cuGetErrorString"))) {
        getString(result, &text);
    }
    return fmt::format("{} ({})", name != nullptr ? name : fmt::format("CUresult {}", result),
                       text != nullptr ? text : "no text");
}

CudaDriverStatus probe() {
    CudaDriverStatus status;
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver == nullptr) {
        const char* error = dlerror();
        status.reason = fmt::format(
            "no CUDA device: no NVIDIA driver ({}); GPU runs and capture need a machine with an "
            "NVIDIA GPU and its driver",
            error != nullptr ? error : "libcuda.so.1 not found");
        return status;
    }
    status.driverLoaded = true;  // kept loaded for the process's life
    const auto init = reinterpret_cast<CuInit>(dlsym(driver, "cuInit"));
    const auto count = reinterpret_cast<CuDeviceGetCount>(dlsym(driver, "cuDeviceGetCount"));
    if (init == nullptr || count == nullptr) {
        status.reason =
            "no CUDA device: libcuda.so.1 lacks cuInit/cuDeviceGetCount (not an NVIDIA "
            "driver library?); reinstall the driver";
        return status;
    }
    if (const int result = init(0); result != 0) {
        status.reason = fmt::format(
            "no CUDA device: cuInit failed: {}; check the driver (nvidia-smi) and "
            "CUDA_VISIBLE_DEVICES",
            driverError(driver, result));
        return status;
    }
    if (const int result = count(&status.devices); result != 0 || status.devices == 0) {
        status.reason = fmt::format(
            "no CUDA device: the driver reports {} GPU(s){}; check CUDA_VISIBLE_DEVICES",
            status.devices, result != 0 ? " (" + driverError(driver, result) + ")" : "");
        status.devices = 0;
    }
    return status;
}

}  // namespace

const CudaDriverStatus& cudaDriverStatus() {
    static const CudaDriverStatus status = probe();
    return status;
}

}  // namespace glueprof::cupti
