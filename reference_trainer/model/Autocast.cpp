#include "reference_trainer/model/Autocast.h"

#include <ATen/autocast_mode.h>

namespace glueprof {

bool cudaAutocastEnabled() { return at::autocast::is_autocast_enabled(at::kCUDA); }

namespace {
void setCudaAutocast(bool enabled) {
    at::autocast::set_autocast_enabled(at::kCUDA, enabled);
    if (enabled) at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
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
