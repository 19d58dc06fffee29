#include "reference_trainer/model/Autocast.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace glueprof {

// libtorch 2.4 made the autocast switches per device type.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define GLUEPROF_AUTOCAST_PER_DEVICE 1
#endif

bool cudaAutocastEnabled() {
#ifdef GLUEPROF_AUTOCAST_PER_DEVICE
    return at::autocast::is_autocast_enabled(at::kCUDA);
#else
    return at::autocast::is_enabled();
#endif
}

namespace {
void setCudaAutocast(bool enabled) {
#ifdef GLUEPROF_AUTOCAST_PER_DEVICE
    at::autocast::set_autocast_enabled(at::kCUDA, enabled);
    if (enabled) at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
#else
    at::autocast::set_enabled(enabled);
    if (enabled) at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
#endif
}
}  // namespace

CudaAutocast::CudaAutocast(bool enable) : m_active(enable) {
    if (!m_active) return;
    m_previous = cudaAutocastEnabled();
    setCudaAutocast(true);
}

CudaAutocast::~CudaAutocast() {
    if (!m_active) return;
    setCudaAutocast(m_previous);
    if (!m_previous) at::autocast::clear_cache();
}

}  // namespace glueprof
