// GPU capture on a machine without a GPU, through the real pieces: the real libcupti (torch's wheel
// or the toolkit's, chosen as a run chooses it) and the real driver probe (libcuda.so.1, cuInit,
// cuDeviceGetCount). The capture refuses before it starts, and says there is no CUDA device in the
// loader's or the driver's own words. CI machines have no GPU; on a GPU machine this is skipped
// (scripts/gpu-check.sh captures for real there).
#include <gtest/gtest.h>

#include <string>

#include "profiler/cupti/CudaDriver.h"
#include "profiler/cupti/GpuCapture.h"

namespace glueprof::cupti {
namespace {

TEST(CaptureWithoutDeviceTest, CaptureRefusesWithTheDriversReasonAfterLoadingTheRealCupti) {
    const CudaDriverStatus& driver = cudaDriverStatus();
    if (driver.reason.empty()) GTEST_SKIP() << "this machine has a CUDA device";
    EXPECT_EQ(driver.devices, 0);
    EXPECT_EQ(driver.reason.rfind("no CUDA device: ", 0), 0u) << driver.reason;

    CaptureStatus status;
    const auto capture = startCapture(CaptureEnvironment{}, status);
    EXPECT_EQ(capture, nullptr);
    EXPECT_FALSE(status.active);
    // libcupti itself loaded (CUPTI_API_VERSION of CUDA 12 and later is 18 or more)...
    EXPECT_FALSE(status.libraryPath.empty()) << status.reason;
    EXPECT_GE(status.runtimeVersion, 18u) << status.reason;
    // ...and the driver is what is missing, with its reason, the same as doctor's.
    EXPECT_TRUE(status.blocker == CaptureStatus::Blocker::kNoDriver ||
                status.blocker == CaptureStatus::Blocker::kNoDevice)
        << status.reason;
    EXPECT_EQ(status.reason, driver.reason);
    const CaptureStatus probe = probeCapture();
    EXPECT_EQ(probe.blocker, status.blocker);
    EXPECT_EQ(probe.reason, driver.reason);
}

}  // namespace
}  // namespace glueprof::cupti
