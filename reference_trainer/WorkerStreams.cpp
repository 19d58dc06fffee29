#include "reference_trainer/WorkerStreams.h"

#include <algorithm>

namespace glueprof {

WorkerStreams::WorkerStreams(const torch::Device& device, int workers) {
    if (!device.is_cuda()) {
        m_devices.push_back(device);
        return;
    }
    m_impl.emplace(device.type());
    const int visible = std::max<int>(1, m_impl->deviceCount());
    for (int d = 0; d < std::min(workers, visible); ++d)
        m_devices.emplace_back(device.type(), static_cast<c10::DeviceIndex>(d));
    for (int w = 0; w < workers; ++w)
        m_streams.push_back(
            m_impl->getStreamFromGlobalPool(this->device(w), /*isHighPriority=*/false));
}

void WorkerStreams::finish(int worker) const {
    if (queued()) m_impl->synchronizeStream(stream(worker));
}

void WorkerStreams::finishCurrent() const {
    if (!queued()) return;
    for (const torch::Device& d : m_devices) m_impl->synchronizeStream(m_impl->getStream(d));
}

at::Tensor WorkerStreams::hostBuffer(const at::Tensor& like) const {
    return at::empty(like.sizes(), like.options().device(at::kCPU).pinned_memory(queued()));
}

}  // namespace glueprof
