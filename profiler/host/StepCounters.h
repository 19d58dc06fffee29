#pragma once
// Deterministic per-step counts, written to the `counters` table at every step end; the counters
// and their stored names are in profiler/core/TraceNames.h.
#include <array>
#include <atomic>
#include <cstdint>

#include "profiler/core/TraceNames.h"

namespace glueprof {

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
