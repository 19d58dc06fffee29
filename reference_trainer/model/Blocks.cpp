#include "reference_trainer/model/Blocks.h"

namespace glueprof {

RMSNormImpl::RMSNormImpl(std::int64_t hidden, double eps, bool trainable) : m_eps(eps) {
    m_weight = register_parameter("weight", torch::ones({hidden}), trainable);
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
    torch::Tensor variance = x.pow(2).mean(-1, /*keepdim=*/true);
    return x * torch::rsqrt(variance + m_eps) * m_weight;
}

MlpImpl::MlpImpl(const ModelConfig& c, const LoraConfig& lora) {
    m_gate = register_module("gate_proj", Projection(c.hidden, c.intermediate, false, lora));
    m_up = register_module("up_proj", Projection(c.hidden, c.intermediate, false, lora));
    m_down = register_module("down_proj", Projection(c.intermediate, c.hidden, false, lora));
}

torch::Tensor MlpImpl::forward(const torch::Tensor& x) {
    return m_down(torch::silu(m_gate(x)) * m_up(x));
}

RotaryTables makeRotaryTables(std::int64_t headDim, std::int64_t maxPositions, double theta,
                              const torch::Device& device) {
    auto options = torch::TensorOptions().dtype(torch::kFloat).device(device);
    torch::Tensor exponent = torch::arange(0, headDim, 2, options) / static_cast<double>(headDim);
    torch::Tensor invFreq = torch::pow(theta, -exponent);                                // [D/2]
    torch::Tensor angles = torch::outer(torch::arange(maxPositions, options), invFreq);  // [P, D/2]
    return RotaryTables{angles.cos(), angles.sin()};
}

torch::Tensor applyRotary(const torch::Tensor& x, const torch::Tensor& cos,
                          const torch::Tensor& sin) {
    const std::int64_t half = x.size(-1) / 2;
    torch::Tensor x1 = x.narrow(-1, 0, half);
    torch::Tensor x2 = x.narrow(-1, half, half);
    return torch::cat({x1 * cos - x2 * sin, x2 * cos + x1 * sin}, -1);
}

}  // namespace glueprof
