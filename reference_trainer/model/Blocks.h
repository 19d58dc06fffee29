#pragma once
// Small building blocks of a Llama/Qwen3-shaped decoder: RMSNorm, the SwiGLU MLP and rotary
// position embedding (rotate-half form).
#include <torch/torch.h>

#include "reference_trainer/TrainConfig.h"
#include "reference_trainer/model/Projection.h"

namespace glueprof {

class RMSNormImpl : public torch::nn::Module {
  public:
    RMSNormImpl(std::int64_t hidden, double eps, bool trainable = true);
    torch::Tensor forward(const torch::Tensor& x);  // [.., H] -> [.., H]

  private:
    torch::Tensor m_weight;
    double m_eps;
};
TORCH_MODULE(RMSNorm);

class MlpImpl : public torch::nn::Module {
  public:
    MlpImpl(const ModelConfig& config, const LoraConfig& lora);
    torch::Tensor forward(const torch::Tensor& x);  // down(silu(gate(x)) * up(x))

  private:
    Projection m_gate{nullptr}, m_up{nullptr}, m_down{nullptr};
};
TORCH_MODULE(Mlp);

// Rotary tables: cos/sin of position * inv_freq, [maxPositions, headDim/2].
struct RotaryTables {
    torch::Tensor cos;
    torch::Tensor sin;
};
RotaryTables makeRotaryTables(std::int64_t headDim, std::int64_t maxPositions, double theta,
                              const torch::Device& device);
// x: [B, heads, T, D]; cos/sin: [T, D/2]
torch::Tensor applyRotary(const torch::Tensor& x, const torch::Tensor& cos,
                          const torch::Tensor& sin);

}  // namespace glueprof
