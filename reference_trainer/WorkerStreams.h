#pragma once
// Where a pipeline worker's device work runs and is queued (PipelineExecutor). On CUDA worker w
// runs on GPU w mod D (D: the visible GPUs) with its own stream from that device's pool, current on
// the worker's host thread while it works; a job ends with the host thread waiting for that stream,
// so the job's range on the worker lane spans its device execution and its outputs are complete
// when another worker picks them up. On CPU a worker's work runs on its host thread as it is
// issued: nothing to enter or wait for. Device-generic c10 stream API (as CopyEngine), so this
// compiles against a CPU-only libtorch.
#include <torch/torch.h>

#include <c10/core/Stream.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <optional>
#include <vector>

namespace glueprof {

class WorkerStreams {
  public:
    WorkerStreams(const torch::Device& device, int workers);

    // True when device work is queued on streams (CUDA) rather than run by the issuing thread.
    bool queued() const { return m_impl.has_value(); }
    // The device worker w computes on, and its index among devices().
    torch::Device device(int worker) const { return m_devices[slot(worker)]; }
    std::size_t slot(int worker) const {
        return static_cast<std::size_t>(worker) % m_devices.size();
    }
    // The devices the workers use, each once (GPU 0, 1, ...; the CPU alone on CPU).
    const std::vector<torch::Device>& devices() const { return m_devices; }
    // Worker w's stream (only when queued()).
    c10::Stream stream(int worker) const { return m_streams.at(static_cast<std::size_t>(worker)); }
    // The host waits until everything queued on worker w's stream has run (nothing on CPU).
    void finish(int worker) const;
    // The host waits until everything the calling thread queued on its current stream of each
    // device has run.
    void finishCurrent() const;
    // Host memory a device copy can read from or write into asynchronously: pinned on CUDA.
    at::Tensor hostBuffer(const at::Tensor& like) const;

  private:
    std::optional<c10::impl::VirtualGuardImpl> m_impl;
    std::vector<torch::Device> m_devices;
    std::vector<c10::Stream> m_streams;
};

}  // namespace glueprof
