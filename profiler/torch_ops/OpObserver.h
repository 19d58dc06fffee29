#pragma once
// OpObserver: a global at::RecordFunction callback that records every aten op (and autograd
// backward node) as an op event on the thread's lane, flags the ops of SyncOpTable, and counts
// ops, would-sync ops and host reads per step. One observer may be active at a time.
#include <ATen/record_function.h>

#include <atomic>
#include <cstdint>

#include "profiler/host/HostTracer.h"

namespace glueprof {

class OpObserver {
  public:
    explicit OpObserver(HostTracer& tracer);
    ~OpObserver();
    OpObserver(const OpObserver&) = delete;
    OpObserver& operator=(const OpObserver&) = delete;

    HostTracer& tracer() { return m_tracer; }
    std::uint64_t instance() const { return m_instance; }

    // In the child of a fork() (a DataLoader worker): the active observer records nothing more
    // there (its writer's thread did not come with the fork). Touches one atomic: fork-safe.
    static void detachInForkedChild() { s_active.store(nullptr); }

  private:
    static std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn);
    static void onEnd(const at::RecordFunction& fn, at::ObserverContext* context);

    // NOTE(trampoline): at::RecordFunctionCallback takes plain function pointers, so the active
    // observer is reached through this one static pointer; nothing else is global.
    static std::atomic<OpObserver*> s_active;

    HostTracer& m_tracer;
    StringId m_routingRange;  // moe_routing: would-sync ops inside it are routing host reads
    std::uint64_t m_instance;
    at::CallbackHandle m_handle = 0;
};

}  // namespace glueprof
