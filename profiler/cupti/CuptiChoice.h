#pragma once
// Which libcupti glueprof loads, and which CUPTI versions it accepts: pure functions of what the
// process can see, so the choice is unit-tested without a GPU. CuptiLibrary gathers the sources
// (environment, dlopen probes) and tries the candidates in this order; `doctor` and the run share
// the version gate. No cupti.h here.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace glueprof::cupti {

// Where a candidate comes from, best first.
enum class CandidateOrigin {
    kExplicit,       // $GLUEPROF_CUPTI_PATH: used alone (a bad path is an error, not a fallback)
    kAlreadyLoaded,  // a libcupti this process already loaded (a CUDA torch brings its own)
    kTorchWheel,     // the pip wheels next to the loaded CUDA libtorch (nvidia/cu13, cuda_cupti)
    kToolkit,        // $CUDA_HOME's, then /usr/local/cuda's, versioned names
    kLoaderPath,     // the dynamic loader's search path
};
const char* toString(CandidateOrigin origin);

struct CuptiCandidate {
    std::string path;
    CandidateOrigin origin = CandidateOrigin::kLoaderPath;
};

// What the process can see.
struct CuptiSources {
    std::string explicitPath;                // $GLUEPROF_CUPTI_PATH; "" when unset
    std::vector<std::string> alreadyLoaded;  // real paths of libcupti.so.13 / .so.12 in the process
    std::string torchDir;  // directory of the loaded CUDA libtorch (libc10_cuda.so); "" when none
    std::string cudaHome;  // $CUDA_HOME; "" when unset
};

// The candidates in the order they are tried: the explicit path alone; else the already-loaded
// copies, then the wheel layouts beside torch (site-packages/torch/lib -> site-packages/nvidia/
// cu13/lib, nvidia/cuda_cupti/lib), then the toolkits' versioned libraries (13 before 12), then the
// loader path's versioned names. Unversioned libcupti.so (a toolkit's development link, whichever
// version it points at) comes last in each toolkit. No path appears twice.
std::vector<CuptiCandidate> cuptiCandidates(const CuptiSources& sources);

// The oldest CUPTI glueprof reads: CUDA 12.0's (API version 19). Its record layouts
// (ActivityLayouts.h) are the oldest ones read, so every later CUPTI works; CUDA 13 numbers its
// versions 130000 and up.
constexpr std::uint32_t kOldestCuptiApiVersion = 19;
// "" when a CUPTI of `apiVersion` can be used; otherwise one line saying why and what to do.
std::string cuptiVersionRefusal(std::uint32_t apiVersion, const std::string& path);

// Another CUPTI client in this process: Nsight Systems and other injected tools set
// CUDA_INJECTION64_PATH, Kineto's on-demand daemon mode KINETO_USE_DAEMON. CUPTI serves one
// activity client, so two would silently lose each other's buffers: glueprof then stays off and
// says why. `getenv` reads one variable ("" when unset). "" when nothing else owns CUPTI.
std::string otherCuptiClient(const std::function<std::string(const char* name)>& getenv);

// NVTX ranges of other code reach CUPTI only when NVTX_INJECTION64_PATH names the loaded libcupti
// before the process's first NVTX call. glueprof never sets it itself (opt-in: the user sets it);
// the note for the run header says whether NVTX of other code is captured and how to capture it.
// `current`: NVTX_INJECTION64_PATH's value; "" when NVTX of other code goes to CUPTI.
std::string nvtxInjectionNote(const std::string& current, const std::string& cuptiPath);

}  // namespace glueprof::cupti
