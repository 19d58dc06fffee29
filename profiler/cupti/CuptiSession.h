#pragma once
// CuptiSession: GPU activity capture with CUPTI, the one class that talks to libcupti at run time.
// start() loads libcupti (CuptiLibrary), checks its version against the headers this build used,
// enables the activity kinds (CONCURRENT_KERNEL, MEMCPY, MEMSET, SYNCHRONIZATION, CUDA_EVENT on its
// own, RUNTIME, DRIVER, MARKER, EXTERNAL_CORRELATION, OVERHEAD), allocates its 4 MiB buffers up
// front, registers the buffer callbacks and makes CUPTI's timestamp the clock of every host event.
// Records go to the production RecordHandler; every step end forces a flush. When anything is
// missing, start() returns null and the status says which and why (with CUPTI's error string); host
// tracing goes on.
//
// CUPTI's buffer callbacks carry no user pointer, so one static trampoline points at the running
// session: one session per process at a time. There is no other global state.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "profiler/core/DeviceCapture.h"
#include "profiler/cupti/GpuCapture.h"
#include "profiler/cupti/RecordHandler.h"

namespace glueprof::cupti {

class CuptiLibrary;

class CuptiSession : public DeviceCapture {
  public:
    static constexpr std::size_t kBufferBytes = 4u << 20;
    static constexpr std::size_t kBuffersUpFront = 8;  // 32 MiB before the measured window
    static constexpr std::size_t kBufferCap =
        64;  // 256 MiB at most; beyond, records are dropped (counted)

    // Starts capture, or returns null with `status` saying why not.
    static std::unique_ptr<CuptiSession> start(CaptureEnvironment env, CaptureStatus& status);
    ~CuptiSession() override;  // flushes, disables, writes what is left, restores the clock
    CuptiSession(const CuptiSession&) = delete;
    CuptiSession& operator=(const CuptiSession&) = delete;

    void enterOp(std::uint64_t externalId, const OpContext& op) override;
    void exitOp() override;
    void flush(std::int32_t step) override;

    CaptureCounts counts() const { return m_handler.counts(); }

  private:
    CuptiSession(std::unique_ptr<CuptiLibrary> library, CaptureEnvironment env);
    std::uint8_t* takeBuffer();
    static void giveBack(std::uint8_t* buffer);  // to the process's pool
    void completed(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer,
                   std::size_t validSize);
    void check(CUptiResult result);  // a failed call while capturing is counted, never thrown
    // CaptureEnvironment::synchronizeDevice, its own API calls and sync records left out.
    void synchronizeDeviceQuietly();

    static void requestTrampoline(std::uint8_t** buffer, std::size_t* size,
                                  std::size_t* maxRecords);
    static void completeTrampoline(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer,
                                   std::size_t size, std::size_t validSize);
    static TimestampNs clockTrampoline();
    static std::atomic<CuptiSession*> s_active;  // the trampoline's target
    // Clock reads that fell back to the steady clock (cuptiGetTimestamp failed): counted into the
    // diagnostics at the next flush (the clock trampoline may not take locks).
    static std::atomic<std::int64_t> s_clockFallbacks;
    // The activity buffers handed to CUPTI, shared by the process's captures (see pool()).
    struct BufferPool {
        std::mutex mutex;
        std::size_t owned = 0;  // allocated so far, at most kBufferCap
        std::vector<std::uint8_t*> free;
    };
    static BufferPool& pool();

    std::unique_ptr<CuptiLibrary> m_library;
    std::function<void()> m_synchronizeDevice;  // CaptureEnvironment::synchronizeDevice
    RecordHandler m_handler;
    std::vector<int> m_enabledKinds;
};

}  // namespace glueprof::cupti
