#include "reference_trainer/model/Attention.h"

#include <torch/version.h>

#include <cmath>

#include "reference_trainer/data/PackedBatches.h"

namespace glueprof {

AttentionImpl::AttentionImpl(const ModelConfig& c, const LoraConfig& lora) : m_config(c) {
    const bool bias = c.attentionBias;
    m_q = register_module("q_proj", Projection(c.hidden, c.heads * c.headDim, bias, lora));
    m_k = register_module("k_proj", Projection(c.hidden, c.kvHeads * c.headDim, bias, lora));
    m_v = register_module("v_proj", Projection(c.hidden, c.kvHeads * c.headDim, bias, lora));
    m_o = register_module("o_proj", Projection(c.heads * c.headDim, c.hidden, bias, lora));
    if (c.qkNorm) {
        m_qNorm = register_module("q_norm", RMSNorm(c.headDim, c.rmsEps, !lora.enabled()));
        m_kNorm = register_module("k_norm", RMSNorm(c.headDim, c.rmsEps, !lora.enabled()));
    }
}

namespace {
// [1, kvHeads, T, D] -> [1, heads, T, D]: each KV head serves heads/kvHeads query heads.
// (expand + reshape rather than repeat_interleave, which is a would-sync op by name.)
torch::Tensor expandKvHeads(const torch::Tensor& kv, std::int64_t groups) {
    if (groups == 1) return kv;
    auto s = kv.sizes();
    return kv.unsqueeze(2)
        .expand({s[0], s[1], groups, s[2], s[3]})
        .reshape({s[0], s[1] * groups, s[2], s[3]});
}
}  // namespace

torch::Tensor AttentionImpl::forward(const torch::Tensor& x, const ForwardContext& context) {
    const std::int64_t t = x.size(1);
    const ModelConfig& c = m_config;
    torch::Tensor q = m_q(x).view({1, t, c.heads, c.headDim}).transpose(1, 2);    // [1,nh,T,D]
    torch::Tensor k = m_k(x).view({1, t, c.kvHeads, c.headDim}).transpose(1, 2);  // [1,nkv,T,D]
    torch::Tensor v = m_v(x).view({1, t, c.kvHeads, c.headDim}).transpose(1, 2);
    if (c.qkNorm) {
        q = m_qNorm(q);
        k = m_kNorm(k);
    }
    q = applyRotary(q, context.ropeCos, context.ropeSin);
    k = applyRotary(k, context.ropeCos, context.ropeSin);
    k = expandKvHeads(k, c.heads / c.kvHeads);
    v = expandKvHeads(v, c.heads / c.kvHeads);

    PackedMetadata meta =
        context.packedMetadata->get(context.batch->packing, x.scalar_type(), context.recompute);
    torch::Tensor out;
    if (x.is_cuda()) {
        // On CUDA the fused kernel (SDPA); both arms of an A/B take the same path.
        out = at::scaled_dot_product_attention(q, k, v, meta.mask.to(q.scalar_type()));
    } else {  // on CPU the manual path: its ops are what the CPU trace shows
        torch::Tensor scores =
            torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(c.headDim));
        out = torch::matmul(torch::softmax(scores + meta.mask, -1), v);  // [1,nh,T,D]
    }
    out = out.transpose(1, 2).reshape({1, t, c.heads * c.headDim});
    return m_o(out);
}

}  // namespace glueprof
