#pragma once
// Per-layer activation checkpointing as a reentrant custom autograd function: forward runs the
// layer without building a graph and saves only its input (or hands it to the context's
// ActivationOffloader, which copies it to host memory and back); backward recomputes the layer with
// grad enabled (context.recompute = true, inside a `recompute` range) and back-propagates through
// the recomputed graph.
#include <torch/torch.h>

#include "reference_trainer/model/ForwardContext.h"

namespace glueprof {

class DecoderLayerImpl;

class LayerCheckpoint : public torch::autograd::Function<LayerCheckpoint> {
  public:
    // `layer` and `context` must outlive the backward pass of this micro-batch.
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x,
                                 DecoderLayerImpl* layer, const ForwardContext* context);
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list gradOutputs);
};

}  // namespace glueprof
