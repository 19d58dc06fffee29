#include "reference_trainer/model/LayerCheckpoint.h"

#include "profiler/core/TraceNames.h"
#include "profiler/host/ScopedRange.h"
#include "reference_trainer/model/Autocast.h"
#include "reference_trainer/model/Decoder.h"

namespace glueprof {

namespace {
// NOTE(checkpoint): AutogradContext::saved_data holds IValues only, so the layer and context
// pointers travel as integers; both outlive the micro-batch's backward (Trainer owns them).
template <typename T>
std::int64_t asInt(T* pointer) {
    return reinterpret_cast<std::int64_t>(pointer);
}
template <typename T>
T* asPointer(const c10::IValue& value) {
    return reinterpret_cast<T*>(value.toInt());
}
}  // namespace

torch::Tensor LayerCheckpoint::forward(torch::autograd::AutogradContext* ctx, torch::Tensor x,
                                       DecoderLayerImpl* layer, const ForwardContext* context) {
    const bool offloaded =
        context->offloader != nullptr && context->offloader->offload(layer->index(), x);
    ctx->save_for_backward(offloaded ? torch::autograd::variable_list{}
                                     : torch::autograd::variable_list{x});
    ctx->saved_data["offloaded"] = offloaded;
    ctx->saved_data["autocast"] = cudaAutocastEnabled();
    ctx->saved_data["layer"] = asInt(layer);
    ctx->saved_data["context"] = asInt(context);
    torch::NoGradGuard noGrad;
    return layer->forward(x, *context);
}

torch::autograd::variable_list LayerCheckpoint::backward(
    torch::autograd::AutogradContext* ctx, torch::autograd::variable_list gradOutputs) {
    auto* layer = asPointer<DecoderLayerImpl>(ctx->saved_data["layer"]);
    ForwardContext context = *asPointer<const ForwardContext>(ctx->saved_data["context"]);
    context.recompute = true;
    ActivationOffloader* offloader = context.offloader;
    const std::int64_t index = layer->index();
    if (offloader != nullptr) offloader->beforeRecompute(index);
    torch::Tensor saved = ctx->saved_data["offloaded"].toBool() ? offloader->reloaded(index)
                                                                : ctx->get_saved_variables()[0];
    torch::Tensor input = saved.detach().requires_grad_(true);
    torch::Tensor output;
    {
        ScopedRange range(context.tracer, names::kRecompute, Category::kPhase,
                          Tags{kNoTag, static_cast<std::int32_t>(index), kNoTag});
        torch::AutoGradMode enableGrad(true);
        CudaAutocast autocast(ctx->saved_data["autocast"].toBool());
        output = layer->forward(input, context);
    }
    if (offloader != nullptr) offloader->afterRecompute(index);
    {
        ScopedRange range(context.tracer, names::kLayerBackward, Category::kPhase,
                          Tags{kNoTag, static_cast<std::int32_t>(index), kNoTag});
        torch::autograd::backward({output}, {gradOutputs[0]});
    }
    if (offloader != nullptr) offloader->afterBackward(index);
    return {input.grad(), torch::Tensor(), torch::Tensor()};
}

}  // namespace glueprof
