#pragma once
// Projection: every linear layer of the decoder (q/k/v/o, gate/up/down). Three forms:
//   full      a trainable weight (and bias), as torch::nn::Linear;
//   LoRA      the weight frozen, plus trainable adapters: y = x W^T + b + (x A^T B^T) * alpha/r,
//             A [r, in] Kaiming-uniform, B [out, r] zero (so training starts at the base model);
//   QLoRA     as LoRA, with the frozen W stored in NF4 and dequantized on the fly in every
//             forward (and so in every checkpoint recompute).
#include <torch/torch.h>

#include <memory>

#include "reference_trainer/TrainConfig.h"
#include "reference_trainer/model/Nf4.h"

namespace glueprof {

class ProjectionImpl : public torch::nn::Module {
  public:
    ProjectionImpl(std::int64_t in, std::int64_t out, bool bias, const LoraConfig& lora);
    torch::Tensor forward(const torch::Tensor& x);  // [.., in] -> [.., out]

    // The base weight as used in forward ([out, in]); dequantized for QLoRA.
    torch::Tensor baseWeight() const;
    bool quantized() const { return m_nf4 != nullptr; }

  private:
    LoraConfig m_lora;
    torch::Tensor m_weight;  // undefined when quantized
    torch::Tensor m_bias;
    std::unique_ptr<Nf4Tensor> m_nf4;
    torch::Tensor m_loraA, m_loraB;
};
TORCH_MODULE(Projection);

}  // namespace glueprof
