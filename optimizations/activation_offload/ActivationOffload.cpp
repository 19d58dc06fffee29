#include "optimizations/activation_offload/ActivationOffload.h"

#include <fmt/format.h>

#include "profiler/core/TraceNames.h"
#include "profiler/host/HostTracer.h"

namespace glueprof {

const char* toString(OffloadMode mode) {
    switch (mode) {
        case OffloadMode::kOff:
            return "off";
        case OffloadMode::kSingleBuffer:
            return "single_buffer";
        case OffloadMode::kDoubleBuffer:
            return "double_buffer";
    }
    return "unknown";
}

ActivationOffloader::ActivationOffloader(OffloadSettings settings, const at::Device& device,
                                         std::int64_t layers, std::int64_t minBytes,
                                         HostTracer* tracer, std::unique_ptr<CopyEngine> engine)
    : m_settings(settings),
      m_device(device),
      m_minBytes(minBytes),
      m_tracer(tracer),
      m_slots(static_cast<std::size_t>(layers)) {
    if (m_settings.enabled())
        m_engine = engine ? std::move(engine) : makeCopyEngine(device, tracer);
}

ActivationOffloader::~ActivationOffloader() {
    if (m_engine) m_engine->drain();
}

void ActivationOffloader::beginStep() {
    ++m_steps;
    // From the second step: the first step runs single-buffered (as the source does), so the
    // second buffer is only taken once the step's peak memory is known.
    m_doubleActive =
        m_settings.mode == OffloadMode::kDoubleBuffer && m_steps >= 2 && !m_secondBufferFailed;
}

namespace {
Tags tagsHere() { return HostTracer::currentTags(); }
MemoryKind deviceMemoryKind(const at::Device& device) {
    return device.is_cuda() ? MemoryKind::kDevice : MemoryKind::kPageable;
}
}  // namespace

bool ActivationOffloader::offload(std::int64_t layer, const at::Tensor& x) {
    const auto index = static_cast<std::size_t>(layer);
    if (!m_settings.enabled() || index + 1 >= m_slots.size()) return false;
    const auto bytes = static_cast<std::int64_t>(x.nbytes());
    if (bytes < m_minBytes) return false;
    Slot& slot = m_slots[index];
    if (!slot.host.defined() || slot.host.sizes() != x.sizes() || slot.host.dtype() != x.dtype()) {
        if (slot.host.defined()) m_hostBytes -= static_cast<std::int64_t>(slot.host.nbytes());
        slot.host =
            at::empty(x.sizes(), x.options().device(at::kCPU).pinned_memory(m_device.is_cuda()));
        m_hostBytes += bytes;
    }
    const Tags tags = tagsHere();
    CopyJob job{slot.host,
                x,
                names::kOffload,
                tags.step,
                static_cast<std::int32_t>(layer),
                tags.microbatch,
                deviceMemoryKind(m_device),
                m_device.is_cuda() ? MemoryKind::kPinned : MemoryKind::kPageable};
    // The input is complete once the compute queued so far has run.
    slot.offloadDone = m_engine->copy(std::move(job), m_engine->markCompute());
    slot.offloaded = true;
    slot.reloadIssued = false;
    slot.reloadDone.reset();
    slot.buffer = m_doubleActive ? static_cast<int>(layer % 2) : 0;
    if (m_tracer != nullptr) m_tracer->counters().add(Counter::kOffloadBytes, bytes);
    return true;
}

at::Tensor& ActivationOffloader::deviceBuffer(int index, const at::Tensor& like) {
    while (static_cast<int>(m_buffers.size()) <= index) {
        m_buffers.emplace_back();
        m_lastUse.emplace_back();
    }
    at::Tensor& buffer = m_buffers[static_cast<std::size_t>(index)];
    if (!buffer.defined() || buffer.sizes() != like.sizes() || buffer.dtype() != like.dtype()) {
        if (buffer.defined()) m_deviceBufferBytes -= static_cast<std::int64_t>(buffer.nbytes());
        buffer = at::empty(like.sizes(), like.options().device(m_device).pinned_memory(false));
        m_deviceBufferBytes += static_cast<std::int64_t>(buffer.nbytes());
        // New storage: its last use is unknown (the allocator may hand out a block the compute
        // stream still reads), so the next reload into it waits for all queued compute.
        m_lastUse[static_cast<std::size_t>(index)].reset();
    }
    return buffer;
}

bool ActivationOffloader::earlyReloadAllowed(std::int64_t layer) const {
    if (!m_doubleActive || layer < 1) return false;
    const Slot& below = m_slots[static_cast<std::size_t>(layer - 1)];
    const Slot& current = m_slots[static_cast<std::size_t>(layer)];
    if (!below.offloaded || below.reloadIssued) return false;
    // The buffer must not be the one this layer's backward is still reading.
    return !(current.offloaded && current.buffer == below.buffer);
}

bool ActivationOffloader::issueReload(std::int64_t layer) {
    Slot& slot = m_slots[static_cast<std::size_t>(layer)];
    at::Tensor* buffer = nullptr;
    try {
        buffer = &deviceBuffer(slot.buffer, slot.host);
    } catch (const c10::Error& error) {
        if (slot.buffer == 0) throw;
        // Not enough memory for the second buffer: one buffer from now on, and say so. Nothing
        // is issued now (buffer 0 may still be in use); reloaded() issues it single-buffered.
        m_secondBufferFailed = true;
        m_doubleActive = false;
        ++m_fallbacks;
        m_buffers.resize(1);
        m_lastUse.resize(1);
        for (Slot& s : m_slots) s.buffer = 0;
        if (m_tracer != nullptr) {
            m_tracer->writer().recordDiagnostic(DiagnosticRecord{
                m_tracer->run(), "double_buffer_fallback", 1,
                fmt::format("the second device buffer ({} bytes) could not be allocated; reloads "
                            "use one buffer: {}",
                            slot.host.nbytes(), error.what_without_backtrace())});
        }
        return false;
    }
    const auto bufferIndex = static_cast<std::size_t>(slot.buffer);
    // Double buffering waits only for the buffer's last use; one buffer waits for all queued
    // compute, the coarse way to know nothing still reads it. A buffer with no recorded last use
    // (its first use, or new storage) waits for the compute too: without a gate the copy stream
    // could write memory the compute stream still reads.
    const CopyEventPtr& lastUse = m_lastUse[bufferIndex];
    CopyEventPtr gate = m_doubleActive && lastUse ? lastUse : m_engine->markCompute();
    const Tags tags = tagsHere();
    CopyJob job{*buffer,
                slot.host,
                names::kReload,
                tags.step,
                static_cast<std::int32_t>(layer),
                tags.microbatch,
                m_device.is_cuda() ? MemoryKind::kPinned : MemoryKind::kPageable,
                deviceMemoryKind(m_device)};
    slot.reloadDone = m_engine->copy(std::move(job), gate);
    slot.reloadIssued = true;
    if (m_tracer != nullptr) m_tracer->counters().add(Counter::kReloads);
    return true;
}

void ActivationOffloader::beforeRecompute(std::int64_t layer) {
    if (m_settings.prefetch && earlyReloadAllowed(layer)) issueReload(layer - 1);
}

at::Tensor ActivationOffloader::reloaded(std::int64_t layer) {
    Slot& slot = m_slots[static_cast<std::size_t>(layer)];
    TORCH_CHECK(slot.offloaded, "layer ", layer, " was not offloaded");
    const TimestampNs start = Clock::nowNs();
    // A reload issued here, at the point of use, stalls the compute from its issue to its end
    // whether or not the thread blocks (it may be descheduled meanwhile); one issued earlier
    // stalls it only if the thread has to block.
    const bool issuedHere = !slot.reloadIssued;
    if (issuedHere && !issueReload(layer)) issueReload(layer);  // retry after a fallback
    const bool blocked = m_engine->computeWaits(slot.reloadDone);
    // The copy queue is in order, so the offload has run; waiting on it rethrows its failure, if
    // any.
    m_engine->computeWaits(slot.offloadDone);
    if (m_tracer != nullptr && m_engine->computeIsHostThread() && (blocked || issuedHere)) {
        Event wait;
        wait.kind = EventKind::kWait;
        wait.category = Category::kSync;
        wait.name = m_tracer->intern(names::kWaitReload);
        wait.startNs = start;
        wait.endNs = Clock::nowNs();
        const Tags tags = tagsHere();
        wait.step = tags.step;
        wait.layer = static_cast<std::int32_t>(layer);
        wait.microbatch = tags.microbatch;
        m_tracer->record(wait);
    }
    return m_buffers[static_cast<std::size_t>(slot.buffer)];
}

void ActivationOffloader::afterRecompute(std::int64_t layer) {
    if (!m_settings.prefetch && earlyReloadAllowed(layer)) issueReload(layer - 1);
}

void ActivationOffloader::afterBackward(std::int64_t layer) {
    Slot& slot = m_slots[static_cast<std::size_t>(layer)];
    if (!slot.offloaded) return;
    m_lastUse[static_cast<std::size_t>(slot.buffer)] = m_engine->markCompute();
    slot.offloaded = false;
    slot.reloadIssued = false;
    slot.offloadDone.reset();
    slot.reloadDone.reset();
}

}  // namespace glueprof
