#include "reference_trainer/model/Moe.h"

#include "optimizations/moe_routing/MoeRouting.h"
#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"

namespace glueprof {

namespace {
constexpr double kGluAlpha = 1.702;  // gpt-oss: glu = gate * sigmoid(alpha * gate)
}

MoeImpl::MoeImpl(const ModelConfig& c, bool frozen) : m_config(c) {
    m_router =
        register_module("router", torch::nn::Linear(torch::nn::LinearOptions(c.hidden, c.experts)));
    const double std = 0.02;
    const bool train = !frozen;
    // Named as gpt-oss checkpoints name them: mlp.experts.gate_up_proj, ...
    auto experts = register_module("experts", std::make_shared<torch::nn::Module>());
    m_gateUp = experts->register_parameter(
        "gate_up_proj", torch::randn({c.experts, c.hidden, 2 * c.intermediate}) * std, train);
    m_gateUpBias = experts->register_parameter(
        "gate_up_proj_bias", torch::zeros({c.experts, 2 * c.intermediate}), train);
    m_down = experts->register_parameter(
        "down_proj", torch::randn({c.experts, c.intermediate, c.hidden}) * std, train);
    m_downBias =
        experts->register_parameter("down_proj_bias", torch::zeros({c.experts, c.hidden}), train);
    if (frozen) {
        for (auto& p : m_router->parameters()) p.set_requires_grad(false);
    }
}

torch::Tensor MoeImpl::forward(const torch::Tensor& x, const ForwardContext& context) {
    const ModelConfig& c = m_config;
    const std::int64_t t = x.size(1);
    torch::Tensor tokens = x.reshape({t, c.hidden});
    torch::Tensor logits = m_router(tokens);                 // [T, E]
    auto [topLogits, topExperts] = logits.topk(c.topK, -1);  // [T, K] each, sorted
    torch::Tensor topWeights = torch::softmax(topLogits, -1);
    torch::Tensor routing = torch::zeros_like(logits).scatter(1, topExperts, topWeights);  // [T, E]

    std::vector<ExpertTokens> routes =
        routeTokens(context.moeRouting, topExperts, c.experts, context.tracer);

    ScopedRange range(context.tracer, names::kMoeExperts, Category::kMath);
    torch::Tensor out = torch::zeros({t, c.hidden}, x.options().dtype(torch::kFloat));
    for (const ExpertTokens& route : routes) {
        const std::int64_t e = route.expert;
        torch::Tensor in = tokens.index_select(0, route.tokens);  // [n, H]
        torch::Tensor h =
            torch::matmul(in, m_gateUp.select(0, e)) + m_gateUpBias.select(0, e);  // [n, 2I]
        torch::Tensor gate = h.slice(1, 0, c10::nullopt, 2).clamp_max(c.swigluLimit);
        torch::Tensor up = h.slice(1, 1, c10::nullopt, 2).clamp(-c.swigluLimit, c.swigluLimit);
        torch::Tensor glu = gate * torch::sigmoid(gate * kGluAlpha);
        torch::Tensor y =
            torch::matmul((up + 1) * glu, m_down.select(0, e)) + m_downBias.select(0, e);
        torch::Tensor weight = routing.select(1, e).index_select(0, route.tokens).unsqueeze(1);
        out.index_add_(0, route.tokens, (y * weight).to(torch::kFloat));
    }
    return out.to(x.scalar_type()).view_as(x);
}

}  // namespace glueprof
