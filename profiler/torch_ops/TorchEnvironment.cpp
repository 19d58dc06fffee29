#include "profiler/torch_ops/TorchEnvironment.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>

#include "profiler/torch_ops/CudaDevice.h"

namespace glueprof {

TorchEnvironment torchEnvironment() {
    TorchEnvironment env;
    env.cudaBuild = torchCudaVersion();
    std::string cudaTag = env.cudaBuild;
    cudaTag.erase(std::remove(cudaTag.begin(), cudaTag.end(), '.'), cudaTag.end());
    env.version = std::string(TORCH_VERSION) + (cudaTag.empty() ? "+cpu" : "+cu" + cudaTag);
    env.cuda = cudaAvailable(env.whyNoCuda);
    env.cudaDevices = static_cast<int>(torch::cuda::device_count());
    env.intraOpThreads = at::get_num_threads();
    return env;
}

}  // namespace glueprof
