#include "analyzers/TensorCorePeaks.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "analyzers/NameMatch.h"

namespace glueprof {

namespace {

// A GPU's dense peak rates, told by a part of its name or by its kernels' architecture prefix.
struct PeakRates {
    const char* match;  // lower case
    const char* gpu;
    double fp32;
    double tensor;
    const char* mode;
};

// NVIDIA's datasheets, dense peak TFLOPS (SXM parts where a name does not say PCIe), by the tokens
// of the device's name, in the order they are tried (H100 PCIe before H100).
constexpr PeakRates kKnownGpus[] = {
    {"h200", "NVIDIA H200", 67.0, 494.7, "TF32"},
    {"h100 pcie", "NVIDIA H100 PCIe", 51.0, 378.0, "TF32"},
    {"h100", "NVIDIA H100", 67.0, 494.7, "TF32"},
    {"gh200", "NVIDIA GH200", 67.0, 494.7, "TF32"},
    {"b200", "NVIDIA B200", 80.0, 1100.0, "TF32"},
    {"a100", "NVIDIA A100", 19.5, 156.0, "TF32"},
    {"a10", "NVIDIA A10", 31.2, 62.5, "TF32"},
    {"a10g", "NVIDIA A10G", 31.2, 62.5, "TF32"},
    {"l40s", "NVIDIA L40S", 91.6, 183.0, "TF32"},
    {"l4", "NVIDIA L4", 30.3, 60.0, "TF32"},
    {"v100", "NVIDIA V100", 15.7, 125.0, "FP16/BF16 autocast"},
    {"t4", "NVIDIA T4", 8.1, 65.0, "FP16/BF16 autocast"},
};

// Told by the kernels' architecture prefix only: the lowest ratio of that architecture's parts.
constexpr PeakRates kArchitectures[] = {
    {"sm90_", "a Hopper GPU", 51.0, 378.0, "TF32"},
    {"ampere_", "an Ampere GPU", 31.2, 62.5, "TF32"},
    {"sm80_", "an Ampere GPU", 31.2, 62.5, "TF32"},
    {"sm86_", "an Ampere GPU", 31.2, 62.5, "TF32"},
    {"turing_", "a Turing GPU", 8.1, 65.0, "FP16/BF16 autocast"},
    {"volta_", "a Volta GPU", 15.7, 125.0, "FP16/BF16 autocast"},
};

TensorCorePeaks peaksOf(const PeakRates& p) { return {p.gpu, p.fp32, p.tensor, p.mode}; }

// The lower-cased letter-and-digit runs of a text.
std::set<std::string> tokensOf(const std::string& text) {
    std::set<std::string> tokens;
    std::string token;
    for (const char c : lowerCased(text) + " ") {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
            token += c;
        } else if (!token.empty()) {
            tokens.insert(token);
            token.clear();
        }
    }
    return tokens;
}

}  // namespace

bool isFp32GemmKernel(const std::string& name) {
    // cuBLAS's small-GEMM kernels name their type as a template argument.
    const bool smallFp32 = containsAny(name, {"gemmsn_", "gemmk1_kernel"}) &&
                           containsAny(name, {"<float,", "<float>"});
    if (!smallFp32 && !containsAny(name, {"sgemm", "gemm_f32f32", "simt_sgemm"})) return false;
    // cuDNN's FP32 convolutions ("implicit_convolve_sgemm") stay FP32 where TF32 cannot apply,
    // with cudnn.allow_tf32 already on by default: not a matmul the fix changes.
    return !containsAny(name, {"tf32", "fp16", "f16", "bf16", "hgemm", "tensorop", "s16816",
                               "s1688", "xf32", "convolve"});
}

std::optional<TensorCorePeaks> tensorCorePeaksOf(const std::string& gpuNames,
                                                 const std::vector<std::string>& kernelNames) {
    // By whole tokens of the names ("NVIDIA A100-SXM4-80GB": nvidia, a100, sxm4, 80gb): an RTX
    // A1000 is no A100, an L40 no L4.
    const std::set<std::string> tokens = tokensOf(gpuNames);
    for (const PeakRates& g : kKnownGpus) {
        const std::set<std::string> wanted = tokensOf(g.match);
        if (std::includes(tokens.begin(), tokens.end(), wanted.begin(), wanted.end()))
            return peaksOf(g);
    }
    for (const std::string& kernel : kernelNames) {
        const std::string name = lowerCased(kernel);
        for (const PeakRates& a : kArchitectures) {
            if (name.rfind(a.match, 0) == 0 ||
                name.find(std::string(" ") + a.match) != std::string::npos)
                return peaksOf(a);
        }
    }
    return std::nullopt;
}

}  // namespace glueprof
