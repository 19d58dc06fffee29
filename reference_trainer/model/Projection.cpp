#include "reference_trainer/model/Projection.h"

#include <cmath>

namespace glueprof {

ProjectionImpl::ProjectionImpl(std::int64_t in, std::int64_t out, bool bias, const LoraConfig& lora)
    : m_lora(lora) {
    // torch::nn::Linear's initialisation: Kaiming-uniform weight, uniform bias in +-1/sqrt(in).
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    torch::Tensor weight = torch::empty({out, in}).uniform_(-bound, bound);
    if (bias) {
        m_bias = register_parameter("bias", torch::empty({out}).uniform_(-bound, bound),
                                    /*requires_grad=*/!lora.enabled());
    }
    if (lora.enabled() && lora.nf4) {
        m_nf4 = std::make_unique<Nf4Tensor>(quantizeNf4(weight));
        // module.to(device) moves buffers in place (set_data), so these handles follow.
        m_nf4->packedCodes = register_buffer("weight_nf4_codes", m_nf4->packedCodes);
        m_nf4->absmax = register_buffer("weight_nf4_absmax", m_nf4->absmax);
    } else {
        m_weight = register_parameter("weight", weight, /*requires_grad=*/!lora.enabled());
    }
    if (lora.enabled()) {
        m_loraA =
            register_parameter("lora_A", torch::empty({lora.rank, in}).uniform_(-bound, bound));
        m_loraB = register_parameter("lora_B", torch::zeros({out, lora.rank}));
    }
}

torch::Tensor ProjectionImpl::baseWeight() const {
    if (m_nf4) return dequantizeNf4(*m_nf4, m_nf4->absmax.scalar_type());
    return m_weight;
}

torch::Tensor ProjectionImpl::forward(const torch::Tensor& x) {
    torch::Tensor y = torch::nn::functional::linear(x, baseWeight(), m_bias);
    if (!m_lora.enabled()) return y;
    const double scaling = m_lora.alpha / static_cast<double>(m_lora.rank);
    return y + torch::matmul(torch::matmul(x, m_loraA.t()), m_loraB.t()) * scaling;
}

}  // namespace glueprof
