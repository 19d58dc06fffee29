#pragma once
// copyToHost: the one way glue code reads a device tensor back to the host. It is a blocking
// device->host copy on CUDA, so it runs inside a RecordFunction named glueprof::to_host that the
// op observer flags as a sync point, on CPU runs too.
#include <ATen/ATen.h>

namespace glueprof {

at::Tensor copyToHost(const at::Tensor& tensor);

}  // namespace glueprof
