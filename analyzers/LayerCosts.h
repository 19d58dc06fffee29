#pragma once
// Per-layer costs measured in a single-worker trainer run, per micro-batch: what `glueprof simulate
// --preset` feeds the pipeline simulator ("measure, then replay"). From the host lane's ranges:
//   forward of layer l   = its `layer` range outside any `recompute` range;
//   recompute of layer l = its `recompute` range;  backward of layer l = its `layer_backward`
//   range; head forward  = a micro-batch's `forward` range less its layers (embedding, final norm,
//   LM head, loss); head backward = its `backward` range less its recomputes and layer backwards.
// Medians over the measured steps' micro-batches.
#include <vector>

#include "profiler/core/TraceModel.h"

namespace glueprof {

// Per micro-batch milliseconds: what the pipeline simulator takes as costs. Also the result of
// analyzers/PipelineReplay (costs measured in an executed pipeline).
struct PerLayerCosts {
    std::vector<double> forwardMs;  // per layer
    std::vector<double> recomputeMs;
    std::vector<double> backwardMs;  // per layer, without the recompute
    double headForwardMs = 0.0;
    double headBackwardMs = 0.0;
};

struct LayerCostsResult : PerLayerCosts {
    std::size_t microbatchesMeasured = 0;
    bool complete() const { return !forwardMs.empty() && microbatchesMeasured > 0; }
};

LayerCostsResult measureLayerCosts(const TraceModel& trace);

}  // namespace glueprof
