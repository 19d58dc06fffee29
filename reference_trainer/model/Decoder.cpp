#include "reference_trainer/model/Decoder.h"

#include <string>

#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"
#include "reference_trainer/model/LayerCheckpoint.h"

namespace glueprof {

DecoderLayerImpl::DecoderLayerImpl(const ModelConfig& c, const LoraConfig& lora, std::int64_t index)
    : m_index(index) {
    const bool trainNorms = !lora.enabled();
    m_inputNorm = register_module("input_layernorm", RMSNorm(c.hidden, c.rmsEps, trainNorms));
    m_attention = register_module("self_attn", Attention(c, lora));
    m_postNorm =
        register_module("post_attention_layernorm", RMSNorm(c.hidden, c.rmsEps, trainNorms));
    if (c.isMoe()) {
        m_moe = register_module("mlp", Moe(c, /*frozen=*/lora.enabled()));
    } else {
        m_mlp = register_module("mlp", Mlp(c, lora));
    }
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor& x, const ForwardContext& context) {
    ScopedRange range(context.tracer, names::kLayer, Category::kPhase,
                      Tags{kNoTag, static_cast<std::int32_t>(m_index), kNoTag});
    torch::Tensor h = x + m_attention(m_inputNorm(x), context);
    torch::Tensor normed = m_postNorm(h);
    return h + (m_moe ? m_moe->forward(normed, context) : m_mlp(normed));
}

DecoderImpl::DecoderImpl(const ModelConfig& c, const LoraConfig& lora, std::int64_t maxPositions,
                         bool checkpoint)
    : m_config(c), m_checkpoint(checkpoint) {
    m_embed = register_module("embed_tokens", torch::nn::Embedding(c.vocab, c.hidden));
    // Registered through a ModuleList so parameter names read layers.0.self_attn.q_proj.weight.
    auto layerList = register_module("layers", torch::nn::ModuleList());
    for (std::int64_t i = 0; i < c.layers; ++i) {
        m_layers.emplace_back(c, lora, i);
        layerList->push_back(m_layers.back());
    }
    m_norm = register_module("norm", RMSNorm(c.hidden, c.rmsEps, !lora.enabled()));
    if (!c.tieEmbeddings) {
        m_lmHead = register_module(
            "lm_head", torch::nn::Linear(torch::nn::LinearOptions(c.hidden, c.vocab).bias(false)));
    }
    if (lora.enabled()) {
        m_embed->weight.set_requires_grad(false);
        if (m_lmHead) m_lmHead->weight.set_requires_grad(false);
    }
    m_rotary = makeRotaryTables(c.headDim, maxPositions, c.ropeTheta, torch::kCPU);
}

void DecoderImpl::fillRotary(const torch::Tensor& positions, ForwardContext& context) {
    torch::Tensor flatPositions = positions.reshape({-1});
    if (m_rotary.cos.device() != positions.device()) {
        m_rotary =
            RotaryTables{m_rotary.cos.to(positions.device()), m_rotary.sin.to(positions.device())};
    }
    context.ropeCos = m_rotary.cos.index_select(0, flatPositions);  // [T, D/2]
    context.ropeSin = m_rotary.sin.index_select(0, flatPositions);
}

torch::Tensor DecoderImpl::embed(const torch::Tensor& tokens, const torch::Tensor& positions,
                                 ForwardContext& context) {
    fillRotary(positions, context);
    return embedTokens(tokens);  // [1,T,H]
}

torch::Tensor DecoderImpl::runLayers(torch::Tensor h, std::int64_t first, std::int64_t count,
                                     const ForwardContext& context) {
    for (std::int64_t i = first; i < first + count; ++i)
        h = m_layers[static_cast<std::size_t>(i)]->forward(h, context);
    return h;
}

torch::Tensor DecoderImpl::head(const torch::Tensor& h) {
    torch::Tensor normed = m_norm(h);
    if (m_lmHead) return m_lmHead(normed);  // [1,T,V]
    // Tied: the embedding may live on another GPU (a pipeline stage's); .to is a no-op on the same
    // device.
    return torch::nn::functional::linear(normed, m_embed->weight.to(normed.device()));
}

std::vector<torch::Tensor> DecoderImpl::layerParameters(std::int64_t i) const {
    return m_layers[static_cast<std::size_t>(i)]->parameters();
}

std::vector<torch::Tensor> DecoderImpl::embedParameters() const { return m_embed->parameters(); }

std::vector<torch::Tensor> DecoderImpl::headParameters() const {
    std::vector<torch::Tensor> params = m_norm->parameters();
    if (m_lmHead) {
        for (const torch::Tensor& p : m_lmHead->parameters()) params.push_back(p);
    } else {
        params.push_back(m_embed->weight);  // tied
    }
    return params;
}

namespace {
std::vector<torch::Tensor> stateOf(const torch::nn::Module& module) {
    std::vector<torch::Tensor> state = module.parameters();
    for (const torch::Tensor& b : module.buffers()) state.push_back(b);
    return state;
}
}  // namespace

std::vector<torch::Tensor> DecoderImpl::layerState(std::int64_t i) const {
    return stateOf(*m_layers[static_cast<std::size_t>(i)]);
}

std::vector<torch::Tensor> DecoderImpl::embedState() const { return stateOf(*m_embed); }

std::vector<torch::Tensor> DecoderImpl::state() const { return stateOf(*this); }

std::vector<torch::Tensor> DecoderImpl::headState() const {
    std::vector<torch::Tensor> state = stateOf(*m_norm);
    const std::vector<torch::Tensor> head =
        m_lmHead ? stateOf(*m_lmHead) : stateOf(*m_embed);  // tied
    state.insert(state.end(), head.begin(), head.end());
    return state;
}

torch::Tensor DecoderImpl::forward(const torch::Tensor& tokens, const torch::Tensor& positions,
                                   ForwardContext& context) {
    torch::Tensor h = embed(tokens, positions, context);
    if (m_checkpoint && torch::GradMode::is_enabled() && !h.requires_grad()) {
        // A frozen embedding (LoRA): the reentrant checkpoint only runs its backward for inputs
        // that require grad, so the adapters behind it would get none (HF's
        // enable_input_require_grads does the same).
        h.requires_grad_(true);
    }
    for (DecoderLayer& layer : m_layers) {
        h = m_checkpoint && torch::GradMode::is_enabled()
                ? LayerCheckpoint::apply(h, layer.get(), &context)
                : layer->forward(h, context);
    }
    return head(h);
}

}  // namespace glueprof
