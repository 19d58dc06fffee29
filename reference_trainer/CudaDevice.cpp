#include "reference_trainer/CudaDevice.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/torch.h>

#include <fmt/format.h>

namespace glueprof {

bool cudaAvailable(std::string& why) {
    static const bool available = torch::cuda::is_available();  // ask the driver once
    if (!available) {
        why =
            "this libtorch has no CUDA or no GPU is visible (build against a CUDA libtorch with "
            "TORCH_DIR)";
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
