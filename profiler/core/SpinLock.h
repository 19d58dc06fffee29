#pragma once
// SpinLock: a lock for a critical section of a few instructions that is almost never contended
// (a thread's own event buffer, taken by that thread per event and by the writer for a moment per
// round). Uncontended, lock is one atomic exchange and unlock one store, against a mutex's two
// library calls and two locked instructions; contended, it yields the core, so a holder that was
// preempted (the writer runs at a low priority) gets to finish.
#include <sched.h>

#include <atomic>

namespace glueprof {

class SpinLock {
  public:
    void lock() {
        while (m_held.exchange(true, std::memory_order_acquire)) {
            while (m_held.load(std::memory_order_relaxed)) ::sched_yield();
        }
    }
    void unlock() { m_held.store(false, std::memory_order_release); }

  private:
    std::atomic<bool> m_held{false};
};

}  // namespace glueprof
