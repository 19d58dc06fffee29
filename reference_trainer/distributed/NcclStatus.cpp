#include "reference_trainer/distributed/NcclStatus.h"

#include <dlfcn.h>
#include <link.h>

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#ifdef GLUEPROF_WITH_NCCL
#include <nccl.h>
#include <torch/csrc/cuda/nccl.h>
#endif

#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

std::string ncclStatus() {
#ifdef GLUEPROF_WITH_NCCL
    const std::uint64_t torchNccl = torch::cuda::nccl::version();  // ncclGetVersion: no GPU needed
    std::string library = "libnccl.so.2 not loaded";
    if (void* handle = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD)) {
        link_map* map = nullptr;
        if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr)
            library = std::filesystem::path(map->l_name).lexically_normal().string();
        dlclose(handle);
    }
    return fmt::format("built: nccl.h {}.{}.{}, torch's NCCL {}.{}.{} ({})", NCCL_MAJOR, NCCL_MINOR,
                       NCCL_PATCH, torchNccl >> 32, (torchNccl >> 16) & 0xffff, torchNccl & 0xffff,
                       library);
#else
    return "not built: " + RankGroup::whyCannotJoin("cuda");
#endif
}

}  // namespace glueprof
