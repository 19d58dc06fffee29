#pragma once
// Activation offload for the per-layer checkpoint: in forward, a layer's input goes to a
// persistent host buffer on the copy engine instead of staying on the device; in backward it is
// reloaded into a device buffer just before the layer's recompute. One toggle arm per program:
//
//   kSingleBuffer (offload, the baseline of double_buffer)
//       backward(i): reload(i) into the one device buffer, the copy first waiting for all queued
//       compute (the buffer may still be in use); the compute waits for the copy; recompute(i);
//       gradient(i). Copy and compute serialize.
//   kDoubleBuffer (double_buffer)
//       two device buffers A/B, chosen by the parity of the offload slot at forward time.
//       backward(i): wait for reload(i); recompute(i); then issue reload(i-1) into the other
//       buffer, waiting only for that buffer's last use (the end of backward(i+1)); gradient(i).
//       The copy for layer i-1 overlaps the backward of layer i. Enabled from the second step
//       (the first runs single-buffered) and only when the second buffer can be allocated; an
//       allocation failure falls back to one buffer and is written to the run's diagnostics.
//   prefetch (with kDoubleBuffer; beyond the source)
//       reload(i-1) is issued at the start of backward(i), before its recompute is launched, so
//       the copy also overlaps the recompute.
//
// The last layer's input is never offloaded (its backward comes first), nor inputs under the
// size threshold. Host buffers are allocated once per layer (pinned on CUDA) and device buffers
// once, then reused by every micro-batch and step. Reloads return the offloaded bytes exactly, so
// loss and gradients are bit-identical with and without offload.
#include <ATen/ATen.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "optimizations/activation_offload/CopyEngine.h"
#include "optimizations/activation_offload/OffloadSettings.h"

namespace glueprof {

class HostTracer;

class ActivationOffloader {
  public:
    // layers: the decoder's layer count; minBytes: inputs smaller than this stay on the device.
    // engine: the copy engine (null: makeCopyEngine for the device; tests pass one that observes
    // the production engine).
    ActivationOffloader(OffloadSettings settings, const at::Device& device, std::int64_t layers,
                        std::int64_t minBytes, HostTracer* tracer,
                        std::unique_ptr<CopyEngine> engine = nullptr);
    ~ActivationOffloader();
    ActivationOffloader(const ActivationOffloader&) = delete;
    ActivationOffloader& operator=(const ActivationOffloader&) = delete;

    const OffloadSettings& settings() const { return m_settings; }
    // Called at the start of every optimizer step.
    void beginStep();

    // Forward of `layer`: copies x to the layer's host buffer when it qualifies; returns whether it
    // did (then the caller keeps no reference to x and calls reloaded() in backward).
    bool offload(std::int64_t layer, const at::Tensor& x);

    // Backward of `layer`, in this order (for every layer, offloaded or not):
    void beforeRecompute(std::int64_t layer);  // prefetch issues reload(layer-1)
    at::Tensor reloaded(std::int64_t layer);   // the offloaded input, once copied back
    void afterRecompute(std::int64_t layer);   // double buffer issues reload(layer-1)
    void afterBackward(std::int64_t layer);    // marks the end of the buffer's use

    // Bytes of host buffers and device buffers allocated so far; they stop growing after the
    // first steps.
    std::int64_t hostBytes() const { return m_hostBytes; }
    std::int64_t deviceBufferBytes() const { return m_deviceBufferBytes; }
    int deviceBuffers() const { return static_cast<int>(m_buffers.size()); }
    bool doubleBuffered() const { return m_doubleActive; }
    std::int64_t fallbacks() const { return m_fallbacks; }

    // Waits for every queued copy.
    void drain() { m_engine->drain(); }

  private:
    struct Slot {
        at::Tensor host;         // persistent host buffer for this layer's input
        bool offloaded = false;  // holds the current micro-batch's input
        bool reloadIssued = false;
        int buffer = 0;            // device buffer chosen at forward time
        CopyEventPtr offloadDone;  // waited on with the reload, so a failed offload is not lost
        CopyEventPtr reloadDone;
    };

    bool earlyReloadAllowed(std::int64_t layer) const;
    // Queues the copy back; false when the second buffer could not be allocated (nothing queued).
    bool issueReload(std::int64_t layer);
    at::Tensor& deviceBuffer(int index, const at::Tensor& like);

    OffloadSettings m_settings;
    at::Device m_device;
    std::int64_t m_minBytes;
    HostTracer* m_tracer;
    std::unique_ptr<CopyEngine> m_engine;
    std::vector<Slot> m_slots;
    std::vector<at::Tensor> m_buffers;    // one, or two once double buffering is on
    std::vector<CopyEventPtr> m_lastUse;  // per device buffer: the end of its last use
    bool m_doubleActive = false;
    bool m_secondBufferFailed = false;
    std::int64_t m_steps = 0;
    std::int64_t m_hostBytes = 0;
    std::int64_t m_deviceBufferBytes = 0;
    std::int64_t m_fallbacks = 0;
};

}  // namespace glueprof
