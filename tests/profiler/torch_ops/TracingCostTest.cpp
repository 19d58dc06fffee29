#include <gtest/gtest.h>
#include <stdlib.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "profiler/core/TraceWriter.h"
#include "profiler/host/HostTracer.h"
#include "profiler/torch_ops/OpObserver.h"
#include "profiler/torch_ops/TracingCost.h"

namespace glueprof {
namespace {

// The calibration gives a positive cost per event or says it could not measure; either way it
// leaves nothing behind: no scratch directory, no observer (one can be made right after), and the
// caller's grad mode as it was.
TEST(TracingCost, MeasuresOrSaysSoAndLeavesNothingBehind) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "glueprof-cost-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    const std::filesystem::path tmp = pattern;
    const char* previous = std::getenv("TMPDIR");
    const std::string previousTmp = previous != nullptr ? previous : "";
    ::setenv("TMPDIR", tmp.c_str(), 1);

    const at::NoGradGuard noGrad;  // a caller without gradients keeps them off
    const auto start = std::chrono::steady_clock::now();
    const std::optional<double> cost = measureTracingCostNsPerOp();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("calibration: %s ns per event in %.1f ms\n",
                cost ? std::to_string(*cost).c_str() : "not measured", ms);
    if (cost) {
        EXPECT_GT(*cost, 0.0);
    }
    EXPECT_FALSE(at::GradMode::is_enabled());

    EXPECT_TRUE(std::filesystem::is_empty(tmp));  // the scratch database's directory is gone
    if (previous != nullptr) {
        ::setenv("TMPDIR", previousTmp.c_str(), 1);
    } else {
        ::unsetenv("TMPDIR");
    }
    std::filesystem::remove_all(tmp);

    const std::string db = (tmp.string() + ".sqlite");
    {
        TraceWriter writer(db);
        HostTracer tracer(writer);
        EXPECT_NO_THROW(OpObserver observer(tracer));  // the calibration's observer is gone
    }
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
}

}  // namespace
}  // namespace glueprof
