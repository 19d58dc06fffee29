#pragma once
// Data parallelism's glue: averaging every gradient across ranks before the optimizer, so every
// rank's weights stay identical. The ddp_overlap toggle's baseline is what a hand-written loop
// does: after backward, one blocking all-reduce per parameter. Each all-reduce is a `comm` range
// on the calling thread's lane (names::kAllReduce: its bytes, its sequence number in the group, the
// parameter index as its bucket).
#include <torch/torch.h>

#include <vector>

#include "profiler/host/HostTracer.h"
#include "reference_trainer/distributed/RankGroup.h"

namespace glueprof {

class GradientSync {
  public:
    // tracer may be null (tracing off).
    GradientSync(RankGroup& group, std::vector<torch::Tensor> parameters, HostTracer* tracer);

    // After backward: each parameter's gradient summed across ranks and divided by the world size,
    // one blocking all-reduce per parameter, in parameter order. A parameter without a gradient
    // contributes zeros (every rank must issue the same collectives).
    void averageAfterBackward();

  private:
    RankGroup& m_group;
    std::vector<torch::Tensor> m_parameters;
    HostTracer* m_tracer;
};

// Records one communication range [startNs, endNs) of `name` on the calling thread's lane.
void recordCommRange(HostTracer* tracer, const char* name, TimestampNs startNs, TimestampNs endNs,
                     std::int64_t sequence, std::int64_t bytes, std::int32_t bucket);

}  // namespace glueprof
