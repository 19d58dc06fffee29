#include "profiler/torch_ops/CudaDevice.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/torch.h>

#include <fmt/format.h>

#include "profiler/cupti/CudaDriver.h"

namespace glueprof {

std::string torchCudaVersion() {
    static const std::string version = [] {
        try {  // a CPU libtorch's hooks throw: there is no ATen_cuda library to ask
            const long cudart = at::detail::getCUDAHooks().versionCUDART();  // e.g. 13000
            return cudart > 0 ? fmt::format("{}.{}", cudart / 1000, cudart % 1000 / 10)
                              : std::string();
        } catch (const std::exception&) {
            return std::string();
        }
    }();
    return version;
}

bool cudaAvailable(std::string& why) {
    static const bool available = torch::cuda::is_available();  // ask the driver once
    if (!available) {
        if (torchCudaVersion().empty()) {
            why =
                "this libtorch is CPU-only (build against a CUDA libtorch: make configure does, "
                "with PyPI's torch)";
        } else {
            // The driver's own answer (cuInit / cuDeviceGetCount), not a guess.
            const std::string& driver = cupti::cudaDriverStatus().reason;
            why = driver.empty() ? "libtorch " + torchCudaVersion() +
                                       " sees no GPU though the driver reports one (a driver "
                                       "older than CUDA " +
                                       torchCudaVersion() + "?); check nvidia-smi"
                                 : driver;
        }
    }
    return available;
}

bool cudaDeviceAvailable(int index, std::string& why) {
    if (!cudaAvailable(why)) return false;
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (index >= 0 && index < count) return true;
    why = fmt::format(
        "GPU {} is wanted (a rank's local rank on its machine: one GPU per rank) but this process "
        "sees {} GPU(s); start at most {} rank(s) per machine, or check CUDA_VISIBLE_DEVICES",
        index, count, count);
    return false;
}

int cudaDeviceOfLocalRank(int localRank) {
    std::string why;
    if (cudaAvailable(why) && torch::cuda::device_count() == 1) return 0;
    return localRank;
}

void useCudaDevice(int index) {
    c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)
        ->setDevice(c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index)));
}

}  // namespace glueprof
