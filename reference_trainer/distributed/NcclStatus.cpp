#include "reference_trainer/distributed/NcclStatus.h"

#include <fmt/format.h>

#include <cstdint>
#ifdef GLUEPROF_WITH_NCCL
#include <nccl.h>
#include <torch/csrc/cuda/nccl.h>
#endif

#include "profiler/cupti/LoadedLibrary.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

std::string ncclStatus() {
#ifdef GLUEPROF_WITH_NCCL
    const std::uint64_t torchNccl = torch::cuda::nccl::version();  // ncclGetVersion: no GPU needed
    std::string library = cupti::loadedLibraryPath("libnccl.so.2");
    if (library.empty()) library = "libnccl.so.2 not loaded";
    return fmt::format("built: nccl.h {}.{}.{}, torch's NCCL {}.{}.{} ({})", NCCL_MAJOR, NCCL_MINOR,
                       NCCL_PATCH, torchNccl >> 32, (torchNccl >> 16) & 0xffff, torchNccl & 0xffff,
                       library);
#else
    return "not built: " + RankGroup::whyCannotJoin("cuda");
#endif
}

}  // namespace glueprof
