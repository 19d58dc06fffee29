#pragma once
// The public face of profiler/cupti, free of cupti.h so the CLI, the GUI and builds without the
// CUDA toolkit use it: start a GPU activity capture, or learn why it cannot run.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "profiler/core/DeviceCapture.h"
#include "profiler/core/TraceWriter.h"

namespace glueprof::cupti {

// What the capture writes through: the store, the run now recorded, and the host lane of an OS
// thread (HostTracer::laneForOsThread), so API calls and syncs land on the thread that made them.
struct CaptureEnvironment {
    TraceWriter* writer = nullptr;
    std::function<RunId()> currentRun;
    std::function<LaneId(RunId, std::int64_t)> laneOfThread;
    std::function<std::string(bool driver, std::uint32_t cbid)> apiName;  // empty: CUPTI names them
    // Waits until the device finished all queued work (torch::cuda::synchronize): called before
    // each step's flush, so every record of the step is complete and no forced flush is needed.
    std::function<void()> synchronizeDevice;
};

struct CaptureStatus {
    // What stops the capture, first missing piece first; kNone while it runs.
    enum class Blocker {
        kNone,
        kCpuRun,
        kNoHeaders,
        kNoLibrary,
        kOldLibrary,
        kNoDriver,
        kNoDevice,  // the driver is there but reports no GPU (cuInit / cuDeviceGetCount)
        kCuptiRefused,
        kBusy,
        kOtherProfiler,  // Nsight Systems or Kineto's daemon owns CUPTI in this process
    };
    bool active = false;
    Blocker blocker = Blocker::kNone;
    // Why not, in one line with what to do, e.g.
    //   "no NVIDIA driver (...)"
    //   "libcupti not found (...)"
    //   "cuptiActivityEnable(CONCURRENT_KERNEL) failed: CUPTI_ERROR_..."
    //   "built without CUPTI headers"
    std::string reason;
    std::string libraryPath;           // the libcupti loaded, when one was
    std::uint32_t runtimeVersion = 0;  // cuptiGetVersion, when loaded
    // CUPTI_API_VERSION this build used (0: built without headers)
    std::uint32_t headerVersion = 0;
    std::vector<std::string> notes;  // kinds this CUPTI does not offer, and similar non-fatal facts

    std::string summary() const;  // one line for `doctor` and run headers
    // The one check that `doctor`'s probe and a capture's start share: when there is no CUDA
    // device (cudaDriverStatus), says so (blocker kNoDriver or kNoDevice, the driver's reason) and
    // returns true.
    bool blockWithoutDevice();
};

// What `doctor` shows without starting a capture: the library, its version and the driver.
CaptureStatus probeCapture();

// Starts capturing (one capture per process), or returns null with `status` saying why not. Attach
// the result to the HostTracer (setDeviceCapture) so ops correlate and steps flush; destroy it
// after the last step to write what is left.
std::unique_ptr<DeviceCapture> startCapture(CaptureEnvironment env, CaptureStatus& status);

}  // namespace glueprof::cupti
