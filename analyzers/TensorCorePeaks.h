#pragma once
// How much faster a GPU's tensor cores run a GEMM than its FP32 units, from the vendor's peak
// dense rates: what bounds the saving of moving FP32 GEMMs to TF32 (Ampere and later) or to
// FP16/BF16 autocast (Volta, Turing). The GPU is told by its name where the trace has it
// (Kineto's deviceProperties, Nsight's TARGET_INFO_GPU, a live run's device), else by the
// architecture in the kernels' names (volta_, turing_, ampere_/sm80_, sm90_).
#include <optional>
#include <string>
#include <vector>

namespace glueprof {

struct TensorCorePeaks {
    std::string gpu;          // "NVIDIA A100", or "an Ampere GPU" when told by kernel names
    double fp32Tflops = 0;    // FP32 (non-tensor) peak
    double tensorTflops = 0;  // the tensor-core peak for the mode below
    std::string mode;         // "TF32" or "FP16/BF16 autocast"
    double speedup() const { return fp32Tflops > 0 ? tensorTflops / fp32Tflops : 1.0; }
};

// `gpuNames`: the GPUs' names (RunMetadata's gpuNamesOf). Null for a GPU without tensor cores,
// or one neither its name nor its kernels tell.
std::optional<TensorCorePeaks> tensorCorePeaksOf(const std::string& gpuNames,
                                                 const std::vector<std::string>& kernelNames);

// An FP32 GEMM kernel that runs on the FP32 units (cuBLAS's sgemm, CUTLASS's SIMT or f32f32
// kernels), not a TF32, FP16 or BF16 tensor-core one.
bool isFp32GemmKernel(const std::string& name);

}  // namespace glueprof
