// glueprof doctor: what this build and machine can capture, and why not when it cannot.
#include <dlfcn.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/Commands.h"
#include "profiler/core/TraceSchema.h"
#include "profiler/host/ScopedRange.h"

namespace glueprof::cli {

namespace {

std::vector<std::string> cuptiCandidates() {
    std::vector<std::string> paths;
    if (const char* explicitPath = std::getenv("GLUEPROF_CUPTI_PATH")) paths.push_back(explicitPath);
    if (const char* cudaHome = std::getenv("CUDA_HOME")) {
        paths.push_back(std::string(cudaHome) + "/lib64/libcupti.so");
        paths.push_back(std::string(cudaHome) + "/extras/CUPTI/lib64/libcupti.so");
    }
    paths.push_back("/usr/local/cuda/lib64/libcupti.so");
    paths.push_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so");
    paths.push_back("libcupti.so");  // the loader path
    return paths;
}

std::string probeCupti() {
    std::string lastError;
    for (const std::string& path : cuptiCandidates()) {
        if (void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
            dlclose(handle);
            return fmt::format("library found at {}; GPU activity capture is not part of this "
                               "build yet (host ranges and aten ops only)",
                               path);
        }
        const char* error = dlerror();
        lastError = error != nullptr ? error : "unknown";
    }
    return "not found (" + lastError + "); set GLUEPROF_CUPTI_PATH or CUDA_HOME";
}

int doctor() {
    std::cout << fmt::format("glueprof trace schema   v{}\n", kTraceSchemaVersion);
    std::cout << fmt::format("libtorch                {}\n", TORCH_VERSION);
    bool cuda = torch::cuda::is_available();
    std::cout << fmt::format("CUDA in libtorch        {}\n",
                             cuda ? fmt::format("yes, {} device(s)", torch::cuda::device_count())
                                  : std::string("no: this libtorch is CPU-only or no GPU/driver is "
                                                "visible; runs use --device cpu"));
    std::cout << fmt::format("intra-op threads        {}\n", at::get_num_threads());
    std::cout << fmt::format("NVTX ranges             {}\n",
                             nvtxEnabled() ? "pushed (NVTX3 headers found at build time)"
                                           : "off (no NVTX3 headers at build time)");
    std::cout << fmt::format("CUPTI                   {}\n", probeCupti());
    return 0;
}

}  // namespace

void registerDoctorCommand(CLI::App& app, Action& action) {
    CLI::App* command = app.add_subcommand("doctor", "what this build and machine can capture");
    command->callback([&action] { action = [] { return doctor(); }; });
}

}  // namespace glueprof::cli
