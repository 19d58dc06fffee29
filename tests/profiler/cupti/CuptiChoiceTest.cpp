// Which libcupti is loaded and which versions are accepted: pure functions of what the process
// sees (profiler/cupti/CuptiChoice.h), so every case is checked without a GPU.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "profiler/cupti/CuptiChoice.h"

namespace glueprof::cupti {
namespace {

std::vector<std::string> paths(const std::vector<CuptiCandidate>& candidates) {
    std::vector<std::string> list;
    for (const CuptiCandidate& c : candidates) list.push_back(c.path);
    return list;
}

std::size_t indexOf(const std::vector<std::string>& list, const std::string& path) {
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (list[i] == path) return i;
    }
    ADD_FAILURE() << path << " is not a candidate";
    return list.size();
}

TEST(CuptiChoiceTest, AnExplicitPathIsTheOnlyCandidate) {
    CuptiSources s;
    s.explicitPath = "/opt/cupti/libcupti.so.12";
    s.alreadyLoaded = {"/x/libcupti.so.13"};
    s.torchDir = "/venv/lib/python3.12/site-packages/torch/lib";
    const std::vector<CuptiCandidate> c = cuptiCandidates(s);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].path, "/opt/cupti/libcupti.so.12");
    EXPECT_EQ(c[0].origin, CandidateOrigin::kExplicit);
}

// A CUDA torch loaded its own CUPTI: that copy first (two CUPTIs in one process fight over the
// driver's callbacks), then the wheels beside torch, then the toolkit, then the loader path.
TEST(CuptiChoiceTest, AnAlreadyLoadedCuptiComesFirstThenTorchsWheelsThenTheToolkit) {
    CuptiSources s;
    s.alreadyLoaded = {"/venv/site-packages/nvidia/cu13/lib/libcupti.so.13"};
    s.torchDir = "/venv/site-packages/torch/lib";
    s.cudaHome = "/opt/cuda-12.8";
    const std::vector<CuptiCandidate> c = cuptiCandidates(s);
    const std::vector<std::string> p = paths(c);
    EXPECT_EQ(c.front().origin, CandidateOrigin::kAlreadyLoaded);
    EXPECT_EQ(p.front(), "/venv/site-packages/nvidia/cu13/lib/libcupti.so.13");
    const std::size_t wheel13 =
        indexOf(p, "/venv/site-packages/torch/lib/../../nvidia/cu13/lib/libcupti.so.13");
    const std::size_t wheel12 =
        indexOf(p, "/venv/site-packages/torch/lib/../../nvidia/cuda_cupti/lib/libcupti.so.12");
    const std::size_t home = indexOf(p, "/opt/cuda-12.8/lib64/libcupti.so.12");
    const std::size_t local13 = indexOf(p, "/usr/local/cuda/lib64/libcupti.so.13");
    const std::size_t localLink = indexOf(p, "/usr/local/cuda/lib64/libcupti.so");
    const std::size_t loader = indexOf(p, "libcupti.so.13");
    EXPECT_LT(0u, wheel13);
    EXPECT_LT(wheel13, wheel12);
    EXPECT_LT(wheel12, home);  // $CUDA_HOME before /usr/local/cuda
    EXPECT_LT(home, local13);
    EXPECT_LT(local13, localLink);  // a toolkit's versioned names before its unversioned link
    EXPECT_LT(localLink, loader);
    EXPECT_EQ(p.back(), "libcupti.so");
    EXPECT_EQ(c.back().origin, CandidateOrigin::kLoaderPath);
}

TEST(CuptiChoiceTest, NoPathIsTriedTwice) {
    CuptiSources s;
    s.cudaHome = "/usr/local/cuda";  // the same toolkit named twice
    s.alreadyLoaded = {"libcupti.so.13"};
    const std::vector<std::string> p = paths(cuptiCandidates(s));
    for (std::size_t i = 0; i < p.size(); ++i) {
        for (std::size_t j = i + 1; j < p.size(); ++j) EXPECT_NE(p[i], p[j]) << p[i];
    }
}

TEST(CuptiChoiceTest, WithoutTorchThereAreNoWheelCandidates) {
    for (const CuptiCandidate& c : cuptiCandidates(CuptiSources{})) {
        EXPECT_NE(c.origin, CandidateOrigin::kTorchWheel) << c.path;
        EXPECT_NE(c.origin, CandidateOrigin::kAlreadyLoaded) << c.path;
    }
}

// Every CUPTI from CUDA 12.0 on is read (ActivityLayouts.h reads the oldest record layouts);
// CUDA 13 numbers its versions 130000 and up.
TEST(CuptiChoiceTest, TheVersionGateAcceptsCuda12AndLaterAndNamesTheFixOtherwise) {
    EXPECT_EQ(cuptiVersionRefusal(19, "a"), "");      // CUDA 12.0
    EXPECT_EQ(cuptiVersionRefusal(28, "a"), "");      // CUDA 12.9 Update 1
    EXPECT_EQ(cuptiVersionRefusal(130000, "a"), "");  // CUDA 13.0
    EXPECT_EQ(cuptiVersionRefusal(130001, "a"), "");  // CUDA 13.0 Update 1
    const std::string old = cuptiVersionRefusal(18, "/usr/local/cuda-11.8/lib64/libcupti.so");
    EXPECT_NE(old.find("/usr/local/cuda-11.8/lib64/libcupti.so is CUPTI API 18"),
              std::string::npos);
    EXPECT_NE(old.find("CUDA 12.0"), std::string::npos);
    EXPECT_NE(old.find("GLUEPROF_CUPTI_PATH"), std::string::npos);
}

// Nsight Systems injects through CUDA_INJECTION64_PATH, Kineto's daemon mode may attach CUPTI at
// any time: with either, glueprof stays off and says why instead of losing buffers silently.
TEST(CuptiChoiceTest, AnotherCuptiClientInTheProcessKeepsGpuCaptureOffAndSaysWhich) {
    std::map<std::string, std::string> env;
    auto getenv = [&env](const char* name) { return env.count(name) ? env[name] : ""; };
    EXPECT_EQ(otherCuptiClient(getenv), "");
    env["KINETO_USE_DAEMON"] = "0";
    EXPECT_EQ(otherCuptiClient(getenv), "");
    env["KINETO_USE_DAEMON"] = "1";
    EXPECT_NE(otherCuptiClient(getenv).find("KINETO_USE_DAEMON"), std::string::npos);
    env["CUDA_INJECTION64_PATH"] = "/opt/nsys/libToolsInjection64.so";
    const std::string nsys = otherCuptiClient(getenv);
    EXPECT_NE(nsys.find("CUDA_INJECTION64_PATH=/opt/nsys/libToolsInjection64.so"),
              std::string::npos);
    EXPECT_NE(nsys.find("one tool at a time"), std::string::npos);
}

// NVTX of other code reaches CUPTI only through NVTX_INJECTION64_PATH naming the loaded libcupti:
// opt-in (glueprof never sets it), and the run header says how to capture it or why it is not.
TEST(CuptiChoiceTest, NvtxInjectionIsTheUsersChoiceAndTheHeaderSaysWhatIsCaptured) {
    EXPECT_NE(nvtxInjectionNote("", "/usr/local/cuda/lib64/libcupti.so.13")
                  .find("NVTX_INJECTION64_PATH=/usr/local/cuda/lib64/libcupti.so.13 captures it"),
              std::string::npos);
    EXPECT_EQ(nvtxInjectionNote("/x/libcupti.so.13", "/x/libcupti.so.13"), "");  // captured
    EXPECT_NE(nvtxInjectionNote("/opt/tool/libinject.so", "/x/libcupti.so.13")
                  .find("only glueprof's own ranges"),
              std::string::npos);
}

}  // namespace
}  // namespace glueprof::cupti
