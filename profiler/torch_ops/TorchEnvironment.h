#pragma once
// The libtorch this process runs on, described: its version as PyPI names its builds, its CUDA,
// the devices it sees. What `doctor` prints, what every run's environment records, and what
// `profile` requires of a program's torch (the capture library shares the program's libtorch).
// Torch-free header.
#include <string>

namespace glueprof {

// What the libtorch this process runs on offers (`doctor`, each run's environment).
struct TorchEnvironment {
    std::string version;  // TORCH_VERSION with its build as PyPI writes it: "2.11.0+cu130", "+cpu"
    std::string cudaBuild;  // the CUDA libtorch was built with ("13.0"), "" when CPU-only
    bool cuda = false;      // torch::cuda::is_available()
    // When !cuda: a CPU-only libtorch, or the driver's reason (cudaAvailable).
    std::string whyNoCuda;
    int cudaDevices = 0;
    int intraOpThreads = 0;
};
TorchEnvironment torchEnvironment();

}  // namespace glueprof
