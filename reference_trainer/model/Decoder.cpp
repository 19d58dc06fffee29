#include "reference_trainer/model/Decoder.h"

#include <string>

#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"
#include "reference_trainer/model/LayerCheckpoint.h"

namespace glueprof {

DecoderLayerImpl::DecoderLayerImpl(const ModelConfig& c, std::int64_t index) : m_index(index) {
    m_inputNorm = register_module("input_layernorm", RMSNorm(c.hidden, c.rmsEps));
    m_attention = register_module("self_attn", Attention(c));
    m_postNorm = register_module("post_attention_layernorm", RMSNorm(c.hidden, c.rmsEps));
    m_mlp = register_module("mlp", Mlp(c));
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor& x, const ForwardContext& context) {
    ScopedRange range(context.tracer, names::kLayer, Category::kPhase,
                      Tags{kNoTag, static_cast<std::int32_t>(m_index), kNoTag});
    torch::Tensor h = x + m_attention(m_inputNorm(x), context);
    return h + m_mlp(m_postNorm(h));
}

DecoderImpl::DecoderImpl(const ModelConfig& c, std::int64_t maxPositions, bool checkpoint)
    : m_config(c), m_checkpoint(checkpoint) {
    m_embed = register_module("embed_tokens", torch::nn::Embedding(c.vocab, c.hidden));
    // Registered through a ModuleList so parameter names read layers.0.self_attn.q_proj.weight.
    auto layerList = register_module("layers", torch::nn::ModuleList());
    for (std::int64_t i = 0; i < c.layers; ++i) {
        m_layers.emplace_back(c, i);
        layerList->push_back(m_layers.back());
    }
    m_norm = register_module("norm", RMSNorm(c.hidden, c.rmsEps));
    m_lmHead = register_module(
        "lm_head", torch::nn::Linear(torch::nn::LinearOptions(c.hidden, c.vocab).bias(false)));
    m_rotary = makeRotaryTables(c.headDim, maxPositions, c.ropeTheta, torch::kCPU);
}

torch::Tensor DecoderImpl::forward(const torch::Tensor& tokens, const torch::Tensor& positions,
                                   ForwardContext& context) {
    torch::Tensor flatPositions = positions.reshape({-1});
    if (m_rotary.cos.device() != tokens.device()) {
        m_rotary = RotaryTables{m_rotary.cos.to(tokens.device()), m_rotary.sin.to(tokens.device())};
    }
    context.ropeCos = m_rotary.cos.index_select(0, flatPositions);  // [T, D/2]
    context.ropeSin = m_rotary.sin.index_select(0, flatPositions);
    torch::Tensor h = m_embed(tokens);  // [1,T,H]
    for (DecoderLayer& layer : m_layers) {
        h = m_checkpoint && torch::GradMode::is_enabled()
                ? LayerCheckpoint::apply(h, layer.get(), &context)
                : layer->forward(h, context);
    }
    return m_lmHead(m_norm(h));  // [1,T,V]
}

}  // namespace glueprof
