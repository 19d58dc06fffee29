#pragma once
// Causal self-attention with grouped-query heads over a packed micro-batch (Qwen3: RMSNorm on
// each head's q and k; gpt-oss: biased projections). The block-diagonal
// mask comes from the PackedMetadataProvider in every call: that is where the packed_* toggles act.
#include <torch/torch.h>

#include "reference_trainer/TrainConfig.h"
#include "reference_trainer/model/Blocks.h"
#include "reference_trainer/model/ForwardContext.h"

namespace glueprof {

class AttentionImpl : public torch::nn::Module {
  public:
    AttentionImpl(const ModelConfig& config, const LoraConfig& lora);
    torch::Tensor forward(const torch::Tensor& x,
                          const ForwardContext& context);  // [1,T,H] -> [1,T,H]

  private:
    ModelConfig m_config;
    Projection m_q{nullptr}, m_k{nullptr}, m_v{nullptr}, m_o{nullptr};
    RMSNorm m_qNorm{nullptr}, m_kNorm{nullptr};  // Qwen3 only
};
TORCH_MODULE(Attention);

}  // namespace glueprof
