#pragma once
// NF4 (4-bit NormalFloat, QLoRA): weights quantized blockwise (64 values per block) to the 16
// values of the NF4 code book scaled by the block's absolute maximum, two codes per byte. The
// frozen base of a QLoRA layer is stored this way and dequantized on the fly in every forward
// (and so again in every checkpoint recompute).
#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <vector>

namespace glueprof {

constexpr std::int64_t kNf4BlockSize = 64;

// The NF4 code book of Dettmers et al. 2023 ("QLoRA", appendix E; bitsandbytes' NF4 table).
const std::array<float, 16>& nf4CodeBook();
// Half the widest gap between neighbouring code book values: |w - dequant(quant(w))| never exceeds
// this times the block's absmax.
double nf4MaxRelativeError();

struct Nf4Tensor {
    torch::Tensor packedCodes;  // [ceil(n/2)] uint8: element 2j in the high nibble, 2j+1 in the low
    torch::Tensor absmax;       // [ceil(n/64)] float32
    std::vector<std::int64_t> shape;
    std::int64_t numel = 0;

    std::int64_t bytes() const;
};

Nf4Tensor quantizeNf4(const torch::Tensor& weight);
torch::Tensor dequantizeNf4(const Nf4Tensor& quantized, torch::ScalarType dtype);

}  // namespace glueprof
