#pragma once
// Deterministic per-step counts, written to the `counters` table at every step end.
// Names are part of the trace format (docs/schema.md); append new counters, never rename.
#include <array>
#include <atomic>
#include <cstdint>

namespace glueprof {

enum class Counter : std::size_t {
    kOpsDispatched = 0,  // top-level aten ops dispatched on traced threads
    kWouldSyncOps,       // top-level ops that block the host on CUDA (SyncOpTable)
    kHostReads,          // device values read back to the host (item, to_host)
    kMaskBuilds,         // packed attention masks built (forward and recompute)
    kMaskBuildsForward,  // of which in the forward pass
    kRoutingHostReads,   // host reads made by MoE routing (per expert, or one per layer pass)
    kOffloadBytes,       // bytes of layer inputs copied to host memory
    kReloads,            // layer inputs copied back for the recompute
    kCount
};

const char* counterName(Counter counter);

class StepCounters {
  public:
    void add(Counter counter, std::int64_t amount = 1) {
        m_values[static_cast<std::size_t>(counter)].fetch_add(amount, std::memory_order_relaxed);
    }
    std::int64_t value(Counter counter) const {
        return m_values[static_cast<std::size_t>(counter)].load(std::memory_order_relaxed);
    }
    void reset() {
        for (auto& v : m_values) v.store(0, std::memory_order_relaxed);
    }

  private:
    std::array<std::atomic<std::int64_t>, static_cast<std::size_t>(Counter::kCount)> m_values{};
};

}  // namespace glueprof
