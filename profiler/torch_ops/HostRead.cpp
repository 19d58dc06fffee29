#include "profiler/torch_ops/HostRead.h"

#include <ATen/record_function.h>

#include <vector>

#include "profiler/torch_ops/SyncOpTable.h"

namespace glueprof {

at::Tensor copyToHost(const at::Tensor& tensor) {
    RECORD_FUNCTION(kHostReadOpName, std::vector<c10::IValue>());
    return tensor.to(at::kCPU, /*non_blocking=*/false, /*copy=*/true);
}

}  // namespace glueprof
