#pragma once
// A gpt-oss-style mixture-of-experts MLP: router linear (with bias) -> top-k experts per token ->
// softmax over the k logits -> dense routing weights [T, E]; each expert: gate_up projection
// (gate and up interleaved), gate clamped above and up clamped both sides at swiglu_limit,
// glu = gate * sigmoid(1.702 gate), down projection of (up + 1) * glu; outputs weighted and
// combined with index_add_ in fp32. Which tokens each expert serves comes from routeTokens(),
// where the moe_* toggles act.
#include <torch/torch.h>

#include "reference_trainer/TrainConfig.h"
#include "reference_trainer/model/ForwardContext.h"

namespace glueprof {

class MoeImpl : public torch::nn::Module {
  public:
    // Under LoRA the router and the experts stay frozen (adapters go on attention and dense MLPs).
    MoeImpl(const ModelConfig& config, bool frozen);
    torch::Tensor forward(const torch::Tensor& x, const ForwardContext& context);  // [1,T,H]

    torch::nn::Linear& router() { return m_router; }
    torch::Tensor& gateUp() { return m_gateUp; }          // [E, H, 2I]
    torch::Tensor& gateUpBias() { return m_gateUpBias; }  // [E, 2I]
    torch::Tensor& down() { return m_down; }              // [E, I, H]
    torch::Tensor& downBias() { return m_downBias; }      // [E, H]

  private:
    ModelConfig m_config;
    torch::nn::Linear m_router{nullptr};
    torch::Tensor m_gateUp, m_gateUpBias, m_down, m_downBias;
};
TORCH_MODULE(Moe);

}  // namespace glueprof
