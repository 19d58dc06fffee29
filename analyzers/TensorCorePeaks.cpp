#include "analyzers/TensorCorePeaks.h"

#include "analyzers/NameMatch.h"

namespace glueprof {

namespace {

struct KnownGpu {
    const char* namePart;  // lower case, in the order they are tried (A100 before A10)
    const char* gpu;
    double fp32;
    double tensor;
    const char* mode;
};

// NVIDIA's datasheets, dense peak TFLOPS (SXM parts where a name does not say PCIe).
constexpr KnownGpu kKnownGpus[] = {
    {"h200", "NVIDIA H200", 67.0, 494.7, "TF32"},
    {"h100 pcie", "NVIDIA H100 PCIe", 51.0, 378.0, "TF32"},
    {"h100", "NVIDIA H100", 67.0, 494.7, "TF32"},
    {"b200", "NVIDIA B200", 80.0, 1100.0, "TF32"},
    {"a100", "NVIDIA A100", 19.5, 156.0, "TF32"},
    {"a10", "NVIDIA A10", 31.2, 62.5, "TF32"},
    {"l40s", "NVIDIA L40S", 91.6, 183.0, "TF32"},
    {"l4", "NVIDIA L4", 30.3, 60.0, "TF32"},
    {"v100", "NVIDIA V100", 15.7, 125.0, "FP16/BF16 autocast"},
    {"t4", "NVIDIA T4", 8.1, 65.0, "FP16/BF16 autocast"},
};

// Told by the kernels' architecture prefix only: the lowest ratio of that architecture's parts.
struct KnownArchitecture {
    const char* prefix;
    const char* gpu;
    double fp32;
    double tensor;
    const char* mode;
};
constexpr KnownArchitecture kArchitectures[] = {
    {"sm90_", "a Hopper GPU", 51.0, 378.0, "TF32"},
    {"ampere_", "an Ampere GPU", 31.2, 62.5, "TF32"},
    {"sm80_", "an Ampere GPU", 31.2, 62.5, "TF32"},
    {"sm86_", "an Ampere GPU", 31.2, 62.5, "TF32"},
    {"turing_", "a Turing GPU", 8.1, 65.0, "FP16/BF16 autocast"},
    {"volta_", "a Volta GPU", 15.7, 125.0, "FP16/BF16 autocast"},
};

}  // namespace

bool isFp32GemmKernel(const std::string& name) {
    if (!containsAny(name, {"sgemm", "gemm_f32f32", "simt_sgemm"})) return false;
    return !containsAny(name, {"tf32", "fp16", "f16", "bf16", "hgemm", "tensorop", "s16816",
                               "s1688", "xf32"});
}

std::optional<TensorCorePeaks> tensorCorePeaksOf(const std::string& deviceText,
                                                 const std::vector<std::string>& kernelNames) {
    const std::string device = lowerCased(deviceText);
    for (const KnownGpu& g : kKnownGpus) {
        if (device.find(g.namePart) != std::string::npos)
            return TensorCorePeaks{g.gpu, g.fp32, g.tensor, g.mode};
    }
    for (const std::string& kernel : kernelNames) {
        const std::string name = lowerCased(kernel);
        for (const KnownArchitecture& a : kArchitectures) {
            if (name.rfind(a.prefix, 0) == 0 || name.find(std::string(" ") + a.prefix) !=
                                                    std::string::npos)
                return TensorCorePeaks{a.gpu, a.fp32, a.tensor, a.mode};
        }
    }
    return std::nullopt;
}

}  // namespace glueprof
