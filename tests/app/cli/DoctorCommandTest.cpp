// `glueprof doctor`: what this build and machine can capture, and why not.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "tests/app/cli/CliHarness.h"

namespace glueprof {
namespace {

using Result = testing::CliResult;
using testing::CliTest;

// On these machines without a GPU doctor names the missing piece. The CUDA build (PyPI's torch, as
// CI builds) loads torch's own libcupti and prints its API version, has NCCL built in, and says
// that GPU capture is off because there is no CUDA device, in the driver's own words (cuInit, or
// the loader's message when there is no driver at all). A bad GLUEPROF_CUPTI_PATH gives its
// documented message.
TEST_F(CliTest, DoctorReportsTorchAndWhyThereIsNoGpu) {
    Result r = run("doctor");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto line = [&r](const std::string& label) {
        const std::size_t at = r.out.find(label);
        return at == std::string::npos ? std::string()
                                       : r.out.substr(at, r.out.find('\n', at) - at);
    };
    EXPECT_FALSE(line("libtorch ").empty()) << r.out;
    EXPECT_NE(line("host clock ").find("steady clock"), std::string::npos) << r.out;
#ifdef GLUEPROF_TORCH_CUDA_BUILD
    EXPECT_TRUE(std::regex_search(
        line("libtorch "),
        std::regex(R"(libtorch +2\.[0-9]+\.[0-9]+\+cu[0-9]+ \(built with CUDA [0-9]+\.[0-9]+\))")))
        << r.out;
    EXPECT_TRUE(std::regex_search(
        line("CUPTI library "),
        std::regex(R"(libcupti\.so\.[0-9]+ \(CUPTI API [0-9]+; built with [0-9]+\))")))
        << r.out;
    EXPECT_TRUE(std::regex_search(
        line("NCCL (ranks on CUDA) "),
        std::regex(R"(built: nccl\.h ([0-9.]+), torch's NCCL \1 \(.*libnccl\.so\.2\))")))
        << r.out;
    EXPECT_NE(line("CUDA device ").find("none: no CUDA device: "), std::string::npos) << r.out;
    EXPECT_NE(line("GPU capture ").find("off: no CUDA device: "), std::string::npos) << r.out;
#else
    const std::string reason = line("GPU capture             off: ");
    bool named = false;
    for (const char* why :
         {"built without CUPTI headers", "libcupti not found", "no CUDA device", "CPU-only"}) {
        named = named || reason.find(why) != std::string::npos;
    }
    EXPECT_TRUE(named) << r.out;
#endif

    // GLUEPROF_CLOCK=steady: the clock is clock_gettime, whatever the CPU has.
    Result steady = run("doctor", "GLUEPROF_CLOCK=steady");
    ASSERT_EQ(steady.exitCode, 0) << steady.err;
    EXPECT_NE(steady.out.find("host clock              steady clock (clock_gettime)"),
              std::string::npos)
        << steady.out;

    Result bad = run("doctor", "GLUEPROF_CUPTI_PATH=" + path("missing-libcupti.so"));
    ASSERT_EQ(bad.exitCode, 0) << bad.err;
    if (bad.out.find("built without CUPTI headers") == std::string::npos) {
        EXPECT_NE(bad.out.find("GLUEPROF_CUPTI_PATH=" + path("missing-libcupti.so") +
                               " cannot be loaded"),
                  std::string::npos)
            << bad.out;
    }
}

}  // namespace
}  // namespace glueprof
